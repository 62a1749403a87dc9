CREATE TABLE "agent_blacklists" (
	"agent_id" text PRIMARY KEY NOT NULL,
	"ip" text NOT NULL,
	"list_ids" text[] NOT NULL,
	"error_zones" text[] NOT NULL,
	"stars" integer NOT NULL,
	"checked_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_blacklists_stars_range" CHECK ("agent_blacklists"."stars" BETWEEN 1 AND 10)
);
--> statement-breakpoint
CREATE TABLE "score_check_quotes" (
	"token" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"price_c" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	CONSTRAINT "score_check_quotes_price" CHECK ("score_check_quotes"."price_c" >= 0 AND "score_check_quotes"."price_c" <= 100000000000)
);
--> statement-breakpoint
CREATE TABLE "score_checks" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"ip" text NOT NULL,
	"user_id" text NOT NULL,
	"token" text NOT NULL,
	"price_c" bigint NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"results" jsonb,
	"warnings" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"checked_at" timestamp with time zone,
	CONSTRAINT "score_checks_token_unique" UNIQUE("token"),
	CONSTRAINT "score_checks_status" CHECK ("score_checks"."status" IN ('running', 'done', 'refunded')),
	CONSTRAINT "score_checks_price" CHECK ("score_checks"."price_c" >= 0 AND "score_checks"."price_c" <= 100000000000)
);
--> statement-breakpoint
CREATE TABLE "speed_checks" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"node_id" text NOT NULL,
	"user_id" text NOT NULL,
	"status" text DEFAULT 'requested' NOT NULL,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"done_at" timestamp with time zone,
	"bps" bigint,
	"error" text,
	CONSTRAINT "speed_checks_status" CHECK ("speed_checks"."status" IN ('requested', 'checking', 'done', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "agent_blacklists" ADD CONSTRAINT "agent_blacklists_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "score_checks" ADD CONSTRAINT "score_checks_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "score_checks" ADD CONSTRAINT "score_checks_token_score_check_quotes_token_fk" FOREIGN KEY ("token") REFERENCES "public"."score_check_quotes"("token") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "speed_checks" ADD CONSTRAINT "speed_checks_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_blacklists_checked_idx" ON "agent_blacklists" USING btree ("checked_at");--> statement-breakpoint
CREATE INDEX "score_check_quotes_user_idx" ON "score_check_quotes" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "score_checks_agent_idx" ON "score_checks" USING btree ("agent_id","checked_at");--> statement-breakpoint
CREATE INDEX "speed_checks_agent_idx" ON "speed_checks" USING btree ("agent_id","requested_at");--> statement-breakpoint
CREATE INDEX "speed_checks_pending_idx" ON "speed_checks" USING btree ("node_id") WHERE "speed_checks"."status" = 'requested';