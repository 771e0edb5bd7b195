-- The role the app runs as: normal rights on every table except audit_log, where it may only INSERT
-- and SELECT. Created only when the migrating user may create roles; otherwise (managed Postgres
-- without CREATEROLE, or a restricted owner) a DBA creates it by hand with the same statements.
-- Log in as it through a login role that inherits it:
--   CREATE ROLE hermes LOGIN PASSWORD '...' IN ROLE hermes_app;
-- Roles are cluster-wide, so another database on the same server may have created it already.
DO $$
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM pg_roles WHERE rolname = current_user AND (rolsuper OR rolcreaterole)
  ) THEN
    RAISE NOTICE 'hermes: % may not create roles; skipping hermes_app (create it by hand)', current_user;
    RETURN;
  END IF;
  BEGIN
    CREATE ROLE hermes_app NOLOGIN;
  EXCEPTION WHEN duplicate_object OR unique_violation THEN
    NULL; -- created already, maybe by a concurrent migration of another database
  END;
  GRANT USAGE ON SCHEMA public TO hermes_app;
  GRANT SELECT, INSERT, UPDATE, DELETE
    ON approvals, runs, tickets, memories, results, slack_events, users TO hermes_app;
  REVOKE ALL ON audit_log FROM hermes_app;
  GRANT SELECT, INSERT ON audit_log TO hermes_app;
  -- nextval() on identity sequences (audit_log draws its id before hashing the row).
  GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO hermes_app;
  -- Tables added by later migrations get normal rights; an append-only one must REVOKE explicitly.
  ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO hermes_app;
  ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO hermes_app;
  -- Start-up checks for pending migrations as the app role (it cannot apply them).
  IF to_regclass('drizzle.__drizzle_migrations') IS NOT NULL THEN
    GRANT USAGE ON SCHEMA drizzle TO hermes_app;
    GRANT SELECT ON drizzle.__drizzle_migrations TO hermes_app;
  END IF;
END
$$;
