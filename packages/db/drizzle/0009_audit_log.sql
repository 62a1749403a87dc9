CREATE TABLE "audit_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"actor_id" text NOT NULL,
	"action" text NOT NULL,
	"target_id" text NOT NULL,
	"before" jsonb,
	"after" jsonb,
	"reason" text,
	CONSTRAINT "audit_log_action_shape" CHECK ("audit_log"."action" ~ '^[a-z]+\.[a-zA-Z]+$')
);
--> statement-breakpoint
CREATE INDEX "audit_log_at_idx" ON "audit_log" USING btree ("at");--> statement-breakpoint
CREATE INDEX "audit_log_actor_at_idx" ON "audit_log" USING btree ("actor_id","at");--> statement-breakpoint
CREATE INDEX "audit_log_target_at_idx" ON "audit_log" USING btree ("target_id","at");--> statement-breakpoint
CREATE INDEX "audit_log_action_at_idx" ON "audit_log" USING btree ("action","at");--> statement-breakpoint
-- Blocking or unblocking an account changes which of its leases gateways serve: one
-- 'lease_changed' per lease that has not ended, so each gateway reloads exactly those.
CREATE OR REPLACE FUNCTION notify_account_blocked() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('lease_changed', l.id) FROM leases l
    WHERE l.user_id = NEW.user_id AND l.ended_at IS NULL;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER accounts_notify_blocked AFTER UPDATE ON accounts
  FOR EACH ROW WHEN (OLD.blocked IS DISTINCT FROM NEW.blocked)
  EXECUTE FUNCTION notify_account_blocked();
