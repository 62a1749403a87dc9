CREATE TABLE "agent_notes" (
	"user_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"note" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_notes_user_id_agent_id_pk" PRIMARY KEY("user_id","agent_id"),
	CONSTRAINT "agent_notes_length" CHECK (char_length("agent_notes"."note") BETWEEN 1 AND 200)
);
--> statement-breakpoint
CREATE TABLE "probe_requests" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"node_id" text NOT NULL,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"claimed_at" timestamp with time zone,
	"done_at" timestamp with time zone,
	"ok" boolean,
	"latency_ms" integer,
	"error" text,
	"observed" jsonb
);
--> statement-breakpoint
ALTER TABLE "agent_notes" ADD CONSTRAINT "agent_notes_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "probe_requests" ADD CONSTRAINT "probe_requests_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "probe_requests_pending_idx" ON "probe_requests" USING btree ("node_id") WHERE "probe_requests"."claimed_at" IS NULL;--> statement-breakpoint
ALTER TABLE "leases" DROP COLUMN "note";