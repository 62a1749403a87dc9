CREATE TABLE "agent_presence" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"node_id" text NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "agent_probes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"ok" boolean NOT NULL,
	"latency_ms" integer,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "agents" (
	"id" text PRIMARY KEY NOT NULL,
	"key_hash" text NOT NULL,
	"node_id" text,
	"ip" text DEFAULT '' NOT NULL,
	"host" text DEFAULT '' NOT NULL,
	"cc" text DEFAULT '' NOT NULL,
	"reg" text DEFAULT '' NOT NULL,
	"city" text DEFAULT '' NOT NULL,
	"zip" text DEFAULT '' NOT NULL,
	"isp" text DEFAULT '' NOT NULL,
	"mob" boolean DEFAULT false NOT NULL,
	"lat" double precision,
	"lon" double precision,
	"conn" text DEFAULT 'wifi' NOT NULL,
	"dev" text DEFAULT 'other' NOT NULL,
	"stars" integer DEFAULT 5 NOT NULL,
	"price_exc_c" bigint DEFAULT 0 NOT NULL,
	"price_shr_c" bigint DEFAULT 0 NOT NULL,
	"is_static" boolean DEFAULT false NOT NULL,
	"first_seen" timestamp with time zone,
	"last_seen" timestamp with time zone,
	"online" boolean DEFAULT false NOT NULL,
	"actv" real DEFAULT 0 NOT NULL,
	"probe_actv" real DEFAULT 0 NOT NULL,
	"speed_bps" bigint,
	"speed_checked_at" timestamp with time zone,
	"speed_status" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agents_stars_range" CHECK ("agents"."stars" BETWEEN 1 AND 10),
	CONSTRAINT "agents_prices_nonneg" CHECK ("agents"."price_exc_c" >= 0 AND "agents"."price_shr_c" >= 0)
);
--> statement-breakpoint
CREATE TABLE "gateway_nodes" (
	"id" text PRIMARY KEY NOT NULL,
	"public_host" text NOT NULL,
	"public_ip" text NOT NULL,
	"socks_base_port" integer NOT NULL,
	"auth_port_min" integer DEFAULT 20000 NOT NULL,
	"auth_port_max" integer DEFAULT 29999 NOT NULL,
	"last_heartbeat" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "leases" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"exc" boolean NOT NULL,
	"static" boolean DEFAULT false NOT NULL,
	"start" timestamp with time zone DEFAULT now() NOT NULL,
	"until" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone,
	"refunded_at" timestamp with time zone,
	"refund_amount_c" bigint,
	"purchase_price_c" bigint DEFAULT 0 NOT NULL,
	"auto_renew" boolean DEFAULT false NOT NULL,
	"note" text DEFAULT '' NOT NULL,
	"socks_user" text NOT NULL,
	"socks_pwd" text NOT NULL,
	"node_id" text,
	"auth_port" integer,
	"whitelist" text[] DEFAULT '{}'::text[] NOT NULL,
	"info" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"reqs" bigint DEFAULT 0 NOT NULL,
	"fails" bigint DEFAULT 0 NOT NULL,
	"in_bytes" bigint DEFAULT 0 NOT NULL,
	"out_bytes" bigint DEFAULT 0 NOT NULL,
	"stats_flushed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "leases_id_pattern" CHECK ("leases"."id" ~ '^[a-z0-9]{4}-[0-9]{4}$'),
	CONSTRAINT "leases_stats_nonneg" CHECK ("leases"."reqs" >= 0 AND "leases"."fails" >= 0 AND "leases"."in_bytes" >= 0 AND "leases"."out_bytes" >= 0)
);
--> statement-breakpoint
ALTER TABLE "agent_presence" ADD CONSTRAINT "agent_presence_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_probes" ADD CONSTRAINT "agent_probes_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_node_id_gateway_nodes_id_fk" FOREIGN KEY ("node_id") REFERENCES "public"."gateway_nodes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "leases" ADD CONSTRAINT "leases_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "leases" ADD CONSTRAINT "leases_node_id_gateway_nodes_id_fk" FOREIGN KEY ("node_id") REFERENCES "public"."gateway_nodes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_presence_agent_idx" ON "agent_presence" USING btree ("agent_id","started_at");--> statement-breakpoint
CREATE INDEX "agent_presence_open_idx" ON "agent_presence" USING btree ("node_id") WHERE "agent_presence"."ended_at" IS NULL;--> statement-breakpoint
CREATE INDEX "agent_probes_agent_at_idx" ON "agent_probes" USING btree ("agent_id","at");--> statement-breakpoint
CREATE UNIQUE INDEX "agents_key_hash_uq" ON "agents" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "agents_node_idx" ON "agents" USING btree ("node_id");--> statement-breakpoint
CREATE INDEX "agents_cc_idx" ON "agents" USING btree ("cc");--> statement-breakpoint
CREATE UNIQUE INDEX "leases_socks_user_uq" ON "leases" USING btree ("socks_user");--> statement-breakpoint
CREATE INDEX "leases_agent_active_idx" ON "leases" USING btree ("agent_id") WHERE "leases"."ended_at" IS NULL;--> statement-breakpoint
CREATE INDEX "leases_user_start_idx" ON "leases" USING btree ("user_id","start");--> statement-breakpoint
CREATE UNIQUE INDEX "leases_node_auth_port_uq" ON "leases" USING btree ("node_id","auth_port") WHERE "leases"."ended_at" IS NULL AND "leases"."auth_port" IS NOT NULL;