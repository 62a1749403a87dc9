CREATE TABLE "package_ports" (
	"package_id" text NOT NULL,
	"node_id" text NOT NULL,
	"port" integer NOT NULL,
	"agent_id" text,
	"rotate_seq" integer DEFAULT 0 NOT NULL,
	"rotated_at" timestamp with time zone,
	CONSTRAINT "package_ports_node_id_port_pk" PRIMARY KEY("node_id","port")
);
--> statement-breakpoint
CREATE TABLE "port_packages" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"user_email" text DEFAULT '' NOT NULL,
	"price_c" bigint NOT NULL,
	"period_days" integer NOT NULL,
	"traffic_type" text NOT NULL,
	"traffic_gb" integer NOT NULL,
	"region" text DEFAULT '' NOT NULL,
	"country" text NOT NULL,
	"state" text DEFAULT '' NOT NULL,
	"city" text DEFAULT '' NOT NULL,
	"connection_type" text NOT NULL,
	"switch_type" text NOT NULL,
	"switch_timer" integer,
	"api_key" text NOT NULL,
	"access_type" text NOT NULL,
	"auth_login" text NOT NULL,
	"auth_password" text NOT NULL,
	"whitelist_ips" text[] DEFAULT '{}'::text[] NOT NULL,
	"node_id" text NOT NULL,
	"port_amount" integer NOT NULL,
	"status" text NOT NULL,
	"suspend_reason" text,
	"date_start" timestamp with time zone NOT NULL,
	"date_finish" timestamp with time zone NOT NULL,
	"requests" bigint DEFAULT 0 NOT NULL,
	"errors" bigint DEFAULT 0 NOT NULL,
	"upload" bigint DEFAULT 0 NOT NULL,
	"download" bigint DEFAULT 0 NOT NULL,
	"stats_flushed_at" timestamp with time zone,
	"generation" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"refunded_at" timestamp with time zone,
	CONSTRAINT "port_packages_period" CHECK ("port_packages"."period_days" IN (1, 7, 30)),
	CONSTRAINT "port_packages_price" CHECK ("port_packages"."price_c" BETWEEN 0 AND 100000000000),
	CONSTRAINT "port_packages_ports" CHECK ("port_packages"."port_amount" BETWEEN 1 AND 400),
	CONSTRAINT "port_packages_timer" CHECK ("port_packages"."switch_timer" IS NULL OR "port_packages"."switch_timer" IN (5, 10, 15))
);
--> statement-breakpoint
CREATE TABLE "port_pricing" (
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"value" bigint NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" text,
	CONSTRAINT "port_pricing_kind_key_pk" PRIMARY KEY("kind","key"),
	CONSTRAINT "port_pricing_value" CHECK ("port_pricing"."value" BETWEEN 0 AND 100000000000)
);
--> statement-breakpoint
ALTER TABLE "package_ports" ADD CONSTRAINT "package_ports_package_id_port_packages_id_fk" FOREIGN KEY ("package_id") REFERENCES "public"."port_packages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "package_ports" ADD CONSTRAINT "package_ports_node_id_gateway_nodes_id_fk" FOREIGN KEY ("node_id") REFERENCES "public"."gateway_nodes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "package_ports" ADD CONSTRAINT "package_ports_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "port_packages" ADD CONSTRAINT "port_packages_node_id_gateway_nodes_id_fk" FOREIGN KEY ("node_id") REFERENCES "public"."gateway_nodes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "package_ports_package_idx" ON "package_ports" USING btree ("package_id");--> statement-breakpoint
CREATE INDEX "port_packages_user_idx" ON "port_packages" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "port_packages_login_idx" ON "port_packages" USING btree ("auth_login");--> statement-breakpoint
CREATE INDEX "port_packages_status_idx" ON "port_packages" USING btree ("status","date_finish");--> statement-breakpoint
-- The default port prices (apps/server/README.md, "Ports"): cents per Gb by period, the unlimited port by period, the ports surcharge by count, percents by geo depth, connection and access.
INSERT INTO "port_pricing" ("kind", "key", "value") VALUES
	('gb', '1', 300), ('gb', '7', 350), ('gb', '30', 400),
	('unlimit', '1', 2500), ('unlimit', '7', 12000), ('unlimit', '30', 40000),
	('ports', '100', 0), ('ports', '200', 100), ('ports', '300', 200), ('ports', '400', 300),
	('geo', 'country', 100), ('geo', 'state', 115), ('geo', 'city', 130),
	('conn', 'both', 100), ('conn', 'wifi', 100), ('conn', 'mobile', 150),
	('access', 'auth', 100), ('access', 'whitelist', 100);--> statement-breakpoint
-- The gateway reloads a package's ports on this channel (payload: the package id).
CREATE FUNCTION "port_package_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify('port_package_changed', COALESCE(NEW.id, OLD.id));
	RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "port_packages_notify" AFTER INSERT OR UPDATE OF "status", "access_type", "auth_login", "auth_password", "whitelist_ips", "switch_type", "switch_timer", "date_finish", "generation" OR DELETE ON "port_packages" FOR EACH ROW EXECUTE FUNCTION "port_package_notify"();
--> statement-breakpoint
CREATE FUNCTION "package_port_rotated_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify('port_package_changed', NEW.package_id);
	RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "package_ports_rotated_notify" AFTER UPDATE OF "rotate_seq" ON "package_ports" FOR EACH ROW EXECUTE FUNCTION "package_port_rotated_notify"();
