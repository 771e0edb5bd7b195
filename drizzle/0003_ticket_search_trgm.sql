-- Optional: a trigram index for `tickets.search_text LIKE '%…%'`. pg_trgm is a trusted extension on
-- Postgres 13+, but may be missing (PGlite, minimal builds) or not creatable by this user; then search
-- stays a sequential scan, which is fine for a team's ticket volume. Results are the same either way.
DO $$
BEGIN
  CREATE EXTENSION IF NOT EXISTS pg_trgm;
  CREATE INDEX IF NOT EXISTS tickets_search_text_trgm_idx ON tickets USING gin (search_text gin_trgm_ops);
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'hermes: no pg_trgm index on tickets.search_text (%)', SQLERRM;
END
$$;
