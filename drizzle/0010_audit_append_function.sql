-- An audit append in one round trip (src/store/audit-append.ts): the chain's lock, the head read and
-- the chained inserts in one statement, instead of BEGIN + lock + head, then INSERT + COMMIT.
-- The hash recipe is unchanged (src/store/audit-chain.ts): the caller sends each row's canonical JSON
-- in four pieces around the three values only known under the lock (created_at, id, prev_hash), and
-- this function joins them: hash = sha256_hex(prev_hash || canonical_json(row)).
-- SECURITY INVOKER (the default): it inserts with the caller's rights, so hermes_app may call it.
CREATE OR REPLACE FUNCTION hermes_audit_append(events jsonb)
RETURNS TABLE (row_id bigint, row_created_at text, row_prev_hash text, row_hash text)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  e jsonb;
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
  -- The same transaction-level lock every writer takes (AUDIT_LOCK_KEY: "HERM" + 2).
  PERFORM pg_advisory_xact_lock(79462570721282);
  -- A statement of its own after the lock: in READ COMMITTED each statement of a VOLATILE function
  -- takes a new snapshot, so this one sees every row committed before the lock was granted.
  SELECT a.hash INTO prev FROM audit_log a ORDER BY a.id DESC LIMIT 1;
  prev := coalesce(prev, repeat('0', 64));
  FOR e IN SELECT value FROM jsonb_array_elements(events) LOOP
    next_id := nextval(pg_get_serial_sequence('audit_log', 'id'));
    at := to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"');
    h := encode(sha256(convert_to(
      prev || (e->>'before_created_at') || at || (e->>'before_id') || next_id::text
        || (e->>'before_prev_hash') || prev || (e->>'after_prev_hash'),
      'UTF8')), 'hex');
    INSERT INTO audit_log (id, created_at, action, tool, user_id, team_id, channel_id, thread_ts,
      run_id, tool_call_id, approval_id, actor_id, args, args_sha256, result_summary, error,
      duration_ms, prev_hash, hash)
    SELECT next_id, at::timestamptz, x.action, x.tool, x.user_id, x.team_id, x.channel_id,
      x.thread_ts, x.run_id, x.tool_call_id, x.approval_id, x.actor_id, x.args, x.args_sha256,
      x.result_summary, x.error, x.duration_ms, prev, h
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
