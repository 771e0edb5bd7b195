-- Written to run again on top of itself (IF NOT EXISTS, DROP … IF EXISTS before each ADD): a test
-- that rewinds the journal to an earlier migration applies this one a second time.
-- Tenancy: every row a user can reach is scoped by its tenant (src/core/tenant.ts): the Slack team id,
-- or the Enterprise org id for an org-wide event with no team, stored in `team_id`. '' (the default)
-- is the legacy tenant: rows written before this migration, or by a caller with no team (the CLI).
-- A Hermes started with one bot token adopts '' rows of these tables into its own workspace
-- (src/store/adopt-legacy-rows.ts); in SQL the rule is coalesce(team_id, '').
ALTER TABLE "tickets" ADD COLUMN IF NOT EXISTS "team_id" text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "tickets_team_id_id_idx" ON "tickets" USING btree ("team_id", "id");--> statement-breakpoint
ALTER TABLE "memories" ADD COLUMN IF NOT EXISTS "team_id" text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "memories_team_id_owner_id_idx" ON "memories" USING btree ("team_id", "scope", "owner_id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "memories_team_id_channel_id_idx" ON "memories" USING btree ("team_id", "channel_id");--> statement-breakpoint
ALTER TABLE "schedules" ADD COLUMN IF NOT EXISTS "team_id" text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "schedules_team_id_idx" ON "schedules" USING btree ("team_id");--> statement-breakpoint
ALTER TABLE "channel_budgets" ADD COLUMN IF NOT EXISTS "team_id" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "channel_budgets" DROP CONSTRAINT IF EXISTS "channel_budgets_pkey";--> statement-breakpoint
ALTER TABLE "channel_budgets" DROP CONSTRAINT IF EXISTS "channel_budgets_team_id_channel_id_pk";--> statement-breakpoint
ALTER TABLE "channel_budgets" ADD CONSTRAINT "channel_budgets_team_id_channel_id_pk" PRIMARY KEY("team_id", "channel_id");--> statement-breakpoint
-- runs and approvals already carry team_id (null on rows written without a team).
CREATE INDEX IF NOT EXISTS "runs_team_id_created_at_idx" ON "runs" USING btree ("team_id", "created_at");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "approvals_team_id_status_idx" ON "approvals" USING btree ("team_id", "status");--> statement-breakpoint

-- The audit log: one hash chain per tenant. `chain_id` names the chain a row belongs to. Rows already
-- here form one chain whatever their team_id, and keep verifying as the '' chain (the column's
-- default fills them without touching them: no UPDATE, so the append-only triggers stay silent).
-- Every new row's chain is its own team's: the CHECK (NOT VALID: new rows only) ties chain_id to the
-- hashed team_id, so a row cannot sit in another team's chain.
ALTER TABLE "audit_log" ADD COLUMN IF NOT EXISTS "chain_id" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_log" DROP CONSTRAINT IF EXISTS "audit_log_chain_id_check";--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_chain_id_check" CHECK (chain_id = coalesce(team_id, '')) NOT VALID;--> statement-breakpoint
-- Each chain starts at the genesis hash: a predecessor is unique within its chain (the chain cannot fork).
ALTER TABLE "audit_log" DROP CONSTRAINT IF EXISTS "audit_log_prev_hash_unique";--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_prev_hash_unique" UNIQUE("chain_id", "prev_hash");--> statement-breakpoint
-- A chain's head (the append), a chain's walk (verify) and a team's rows newest first (/hermes audit).
CREATE INDEX IF NOT EXISTS "audit_log_chain_id_id_idx" ON "audit_log" USING btree ("chain_id", "id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "audit_log_team_id_created_at_idx" ON "audit_log" USING btree ("team_id", "created_at");--> statement-breakpoint

-- The advisory lock of one chain: the '' chain keeps the single chain's key (AUDIT_LOCK_KEY, "HERM" + 2),
-- every other chain a 64-bit hash of its name, so two teams append at the same time.
CREATE OR REPLACE FUNCTION hermes_audit_lock_key(chain text) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN chain = '' THEN 79462570721282::bigint
    ELSE hashtextextended('hermes-audit-chain:' || chain, 0) END
$$;--> statement-breakpoint

-- The append of drizzle/0010, per chain: every row of one call belongs to one chain, its team's
-- (coalesce(team_id, ''); the caller batches per team, src/store/audit.ts). Under that chain's lock it
-- reads the chain's head and links each row to the previous row of the chain. A call whose rows name
-- two teams is refused (nothing of it is written). The hash recipe is unchanged: old rows verify as
-- they did.
CREATE OR REPLACE FUNCTION hermes_audit_append(events jsonb)
RETURNS TABLE (row_id bigint, row_created_at text, row_prev_hash text, row_hash text)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  e jsonb;
  chain text;
  prev text;
  next_id bigint;
  at text;
  h text;
BEGIN
  -- Under REPEATABLE READ the head read below would see the transaction's first snapshot, which can
  -- predate the lock: a stale head forks the chain (the unique prev_hash refuses it, but fails).
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'The audit log can only be written in a READ COMMITTED transaction.'
      USING ERRCODE = 'invalid_transaction_state';
  END IF;
  IF jsonb_array_length(events) = 0 THEN
    RETURN;
  END IF;
  chain := coalesce(events->0->'row'->>'team_id', '');
  -- The lock of this chain only (hermes_audit_lock_key): other teams append meanwhile.
  PERFORM pg_advisory_xact_lock(hermes_audit_lock_key(chain));
  -- A statement of its own after the lock: in READ COMMITTED each statement of a VOLATILE function
  -- takes a new snapshot, so this one sees every row committed before the lock was granted.
  SELECT a.hash INTO prev FROM audit_log a WHERE a.chain_id = chain ORDER BY a.id DESC LIMIT 1;
  prev := coalesce(prev, repeat('0', 64));
  FOR e IN SELECT value FROM jsonb_array_elements(events) LOOP
    IF coalesce(e->'row'->>'team_id', '') <> chain THEN
      RAISE EXCEPTION 'One audit append writes the rows of one team''s chain.'
        USING ERRCODE = 'invalid_parameter_value';
    END IF;
    next_id := nextval(pg_get_serial_sequence('audit_log', 'id'));
    at := to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"');
    h := encode(sha256(convert_to(
      prev || (e->>'before_created_at') || at || (e->>'before_id') || next_id::text
        || (e->>'before_prev_hash') || prev || (e->>'after_prev_hash'),
      'UTF8')), 'hex');
    INSERT INTO audit_log (id, created_at, action, tool, user_id, team_id, channel_id, thread_ts,
      run_id, tool_call_id, approval_id, actor_id, args, args_sha256, result_summary, error,
      duration_ms, prev_hash, hash, chain_id)
    SELECT next_id, at::timestamptz, x.action, x.tool, x.user_id, x.team_id, x.channel_id,
      x.thread_ts, x.run_id, x.tool_call_id, x.approval_id, x.actor_id, x.args, x.args_sha256,
      x.result_summary, x.error, x.duration_ms, prev, h, chain
    FROM jsonb_to_record(e->'row') AS x(action text, tool text, user_id text, team_id text,
      channel_id text, thread_ts text, run_id text, tool_call_id text, approval_id text,
      actor_id text, args jsonb, args_sha256 text, result_summary text, error text,
      duration_ms integer);
    row_id := next_id;
    row_created_at := at;
    row_prev_hash := prev;
    row_hash := h;
    RETURN NEXT;
    prev := h;
  END LOOP;
END;
$$;
