ALTER TABLE "agents" ADD COLUMN "active_shared" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "active_exclusive" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "agents_shop_idx" ON "agents" USING btree ("cc","actv" DESC NULLS LAST,"id") WHERE online AND NOT is_static AND node_id IS NOT NULL AND active_exclusive = 0 AND active_shared < 4;--> statement-breakpoint
CREATE INDEX "agents_shop_reg_idx" ON "agents" USING btree ("cc","reg","conn") WHERE online AND NOT is_static AND node_id IS NOT NULL AND active_exclusive = 0 AND active_shared < 4;--> statement-breakpoint
CREATE INDEX "agents_shop_geo_idx" ON "agents" USING btree ("cc","lat","lon") WHERE online AND NOT is_static AND node_id IS NOT NULL AND active_exclusive = 0 AND active_shared < 4;--> statement-breakpoint
CREATE INDEX "agents_shop_ip_idx" ON "agents" USING btree ("cc","ip" text_pattern_ops) WHERE online AND NOT is_static AND node_id IS NOT NULL AND active_exclusive = 0 AND active_shared < 4;--> statement-breakpoint
-- agents.active_shared / active_exclusive follow every lease that starts, ends, is deleted or changes kind or agent.
CREATE OR REPLACE FUNCTION agents_count_active_leases() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND (OLD.ended_at IS NULL) = (NEW.ended_at IS NULL)
     AND OLD.exc = NEW.exc AND OLD.agent_id = NEW.agent_id THEN
    RETURN NULL;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.ended_at IS NULL THEN
    UPDATE agents SET active_shared = active_shared - (NOT OLD.exc)::int,
                      active_exclusive = active_exclusive - OLD.exc::int
    WHERE id = OLD.agent_id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.ended_at IS NULL THEN
    UPDATE agents SET active_shared = active_shared + (NOT NEW.exc)::int,
                      active_exclusive = active_exclusive + NEW.exc::int
    WHERE id = NEW.agent_id;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER leases_count_active AFTER INSERT OR DELETE OR UPDATE OF ended_at, exc, agent_id ON leases
  FOR EACH ROW EXECUTE FUNCTION agents_count_active_leases();
--> statement-breakpoint
UPDATE agents a SET active_shared = c.shared, active_exclusive = c.exclusive
FROM (SELECT agent_id, count(*) FILTER (WHERE NOT exc)::int AS shared, count(*) FILTER (WHERE exc)::int AS exclusive
      FROM leases WHERE ended_at IS NULL GROUP BY agent_id) c
WHERE a.id = c.agent_id;
