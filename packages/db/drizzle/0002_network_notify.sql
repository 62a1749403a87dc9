-- Gateways LISTEN on 'lease_changed': the payload is the lease id, or '' for "reload everything".
-- Only columns the data path uses raise a notification (the meter's stats updates do not).
CREATE OR REPLACE FUNCTION notify_lease_changed() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('lease_changed', OLD.id);
    RETURN OLD;
  END IF;
  PERFORM pg_notify('lease_changed', NEW.id);
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER leases_notify_insert AFTER INSERT ON leases
  FOR EACH ROW EXECUTE FUNCTION notify_lease_changed();
--> statement-breakpoint
CREATE TRIGGER leases_notify_delete AFTER DELETE ON leases
  FOR EACH ROW EXECUTE FUNCTION notify_lease_changed();
--> statement-breakpoint
CREATE TRIGGER leases_notify_update AFTER UPDATE ON leases
  FOR EACH ROW WHEN (
    OLD.ended_at IS DISTINCT FROM NEW.ended_at
    OR OLD.until IS DISTINCT FROM NEW.until
    OR OLD.socks_user IS DISTINCT FROM NEW.socks_user
    OR OLD.socks_pwd IS DISTINCT FROM NEW.socks_pwd
    OR OLD.whitelist IS DISTINCT FROM NEW.whitelist
    OR OLD.auth_port IS DISTINCT FROM NEW.auth_port
    OR OLD.node_id IS DISTINCT FROM NEW.node_id
    OR OLD.agent_id IS DISTINCT FROM NEW.agent_id
  ) EXECUTE FUNCTION notify_lease_changed();
--> statement-breakpoint
-- An agent that moves to another node takes its leases along: gateways do a full reload.
CREATE OR REPLACE FUNCTION notify_agent_node_changed() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('lease_changed', '');
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER agents_notify_node AFTER UPDATE ON agents
  FOR EACH ROW WHEN (OLD.node_id IS DISTINCT FROM NEW.node_id)
  EXECUTE FUNCTION notify_agent_node_changed();
