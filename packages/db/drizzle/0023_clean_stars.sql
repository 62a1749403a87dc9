ALTER TABLE "agents" ADD COLUMN "clean_stars" integer DEFAULT 5 NOT NULL;--> statement-breakpoint
-- agents.clean_stars: the blacklist result of the agent's current address, else its own stars (the
-- clean score the shop shows and filters on), so the stars filter reads one table. An agent row's
-- own write of ip or stars recomputes it; a blacklist result written or removed recomputes its agent.
CREATE OR REPLACE FUNCTION agent_clean_stars(agent_id text, ip text, stars integer) RETURNS integer
  LANGUAGE sql STABLE AS $$
  SELECT coalesce((SELECT b.stars FROM agent_blacklists b WHERE b.agent_id = $1 AND b.ip = $2), $3)
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION agents_set_clean_stars() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.clean_stars := agent_clean_stars(NEW.id, NEW.ip, NEW.stars);
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER agents_clean_stars BEFORE INSERT OR UPDATE OF ip, stars, clean_stars ON agents
  FOR EACH ROW EXECUTE FUNCTION agents_set_clean_stars();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION agent_blacklists_set_clean_stars() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE agents a SET clean_stars = agent_clean_stars(a.id, a.ip, a.stars)
    WHERE a.id = OLD.agent_id AND a.clean_stars IS DISTINCT FROM agent_clean_stars(a.id, a.ip, a.stars);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    UPDATE agents a SET clean_stars = agent_clean_stars(a.id, a.ip, a.stars)
    WHERE a.id = NEW.agent_id AND a.clean_stars IS DISTINCT FROM agent_clean_stars(a.id, a.ip, a.stars);
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER agent_blacklists_clean_stars AFTER INSERT OR UPDATE OR DELETE ON agent_blacklists
  FOR EACH ROW EXECUTE FUNCTION agent_blacklists_set_clean_stars();
--> statement-breakpoint
UPDATE agents a SET clean_stars = b.stars FROM agent_blacklists b WHERE b.agent_id = a.id AND b.ip = a.ip;--> statement-breakpoint
UPDATE agents SET clean_stars = stars WHERE clean_stars <> stars AND NOT EXISTS (
  SELECT 1 FROM agent_blacklists b WHERE b.agent_id = agents.id AND b.ip = agents.ip);--> statement-breakpoint
CREATE INDEX "agents_shop_stars_idx" ON "agents" USING btree ("cc","clean_stars") WHERE online AND NOT is_static AND node_id IS NOT NULL AND active_exclusive = 0 AND active_shared < 4;--> statement-breakpoint
CREATE INDEX "agents_static_idx" ON "agents" USING btree ("cc","city","ip","id") WHERE "agents"."is_static" AND "agents"."online" AND "agents"."node_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "leases_lapsed_idx" ON "leases" USING btree ("until") WHERE "leases"."ended_at" IS NULL;
