ALTER TABLE "package_ports" ALTER COLUMN "package_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "gateway_nodes" ADD COLUMN "package_port_min" integer DEFAULT 30000 NOT NULL;--> statement-breakpoint
ALTER TABLE "gateway_nodes" ADD COLUMN "package_port_max" integer DEFAULT 39999 NOT NULL;--> statement-breakpoint
ALTER TABLE "gateway_nodes" ADD COLUMN "package_http_offset" integer DEFAULT 10000 NOT NULL;--> statement-breakpoint
ALTER TABLE "lease_traffic_hourly" ADD COLUMN "auth_fails" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "leases" ADD COLUMN "auth_fails" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "package_ports" ADD COLUMN "bound_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "package_ports" ADD COLUMN "bind_error" text;--> statement-breakpoint
ALTER TABLE "package_traffic_hourly" ADD COLUMN "auth_fails" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "port_packages" ADD COLUMN "auth_fails" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "port_packages" ADD COLUMN "flush_requested_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "port_packages" ADD COLUMN "refunded_c" bigint;--> statement-breakpoint
ALTER TABLE "sale_requests" ADD COLUMN "package_id" text;--> statement-breakpoint
-- The rules that decide money or traffic, once, for the server's queries and the gateway's loads
-- alike; each takes the clock as an argument. Their TypeScript twins are in
-- packages/contracts/src/rules.ts (rules.int.test.ts compares both on random rows).
CREATE OR REPLACE FUNCTION bytes_per_gb() RETURNS bigint
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT 1073741824::bigint $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION lease_active(ended_at timestamptz, until timestamptz, at timestamptz) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT ended_at IS NULL AND until > at $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION package_active(status text, date_finish timestamptz, at timestamptz) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT status = 'active' AND date_finish > at $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION package_volume_bytes(traffic_type text, traffic_gb integer) RETURNS bigint
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN traffic_type = 'limit' THEN traffic_gb::bigint * bytes_per_gb() END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION package_over_volume(traffic_type text, traffic_gb integer, used bigint) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT traffic_type = 'limit' AND used >= traffic_gb::bigint * bytes_per_gb() $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION port_refund_allowance(traffic_gb integer) RETURNS bigint
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT 10485760::bigint * greatest(1, traffic_gb) $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION place_key(name text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT translate(replace(name, ' ', ''), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION exit_matches(
  a_cc text, a_reg text, a_city text, a_conn text,
  g_country text, g_state text, g_city text, g_conn text
) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT (g_country = '' OR a_cc = g_country)
      AND (g_state = '' OR place_key(a_reg) = place_key(g_state))
      AND (g_city = '' OR place_key(a_city) = place_key(g_city))
      AND CASE g_conn WHEN 'wifi' THEN a_conn = 'wifi' WHEN 'mobile' THEN a_conn = 'cell' ELSE true END $$;
--> statement-breakpoint
-- Blocking or unblocking an account changes which of its packages gateways serve, as for leases.
CREATE OR REPLACE FUNCTION notify_account_blocked() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('lease_changed', l.id) FROM leases l
    WHERE l.user_id = NEW.user_id AND l.ended_at IS NULL;
  PERFORM pg_notify('port_package_changed', p.id) FROM port_packages p
    WHERE p.user_id = NEW.user_id AND p.status <> 'refunded';
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
-- A decision that pays out asks the package's node for exact counters (payload: the package id).
CREATE FUNCTION "package_flush_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify('package_flush', NEW.id);
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "port_packages_flush_notify" AFTER UPDATE OF "flush_requested_at" ON "port_packages"
  FOR EACH ROW WHEN (NEW.flush_requested_at IS DISTINCT FROM OLD.flush_requested_at)
  EXECUTE FUNCTION "package_flush_notify"();
