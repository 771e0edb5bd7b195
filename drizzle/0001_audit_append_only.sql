-- audit_log is append-only: no role that the triggers apply to may change or remove a row. Only a
-- table owner or superuser can get around this (ALTER TABLE ... DISABLE TRIGGER), and the hash chain
-- makes such tampering visible to `npm run audit -- verify`.
CREATE OR REPLACE FUNCTION audit_log_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only: % is not allowed', TG_OP
    USING ERRCODE = 'insufficient_privilege',
          HINT = 'Audit rows are never changed or removed; record a new event instead.';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER audit_log_refuse_update_delete
  BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_refuse_change();
--> statement-breakpoint
-- TRUNCATE does not fire row triggers, so it needs its own statement-level one.
CREATE TRIGGER audit_log_refuse_truncate
  BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION audit_log_refuse_change();
