-- Raw call arguments are kept only while a call may still run (src/store/finished-snapshot.ts,
-- src/policy/approval-record.ts): a pending approval and a running or paused run's snapshot. This
-- brings rows written before that rule into line with it; the audit log keeps each call's redacted
-- arguments and keyed hash either way, and is not touched.
--
-- A finished run's snapshot keeps its identity, counters and final answer only (finishedSnapshot).
UPDATE runs SET snapshot = (snapshot - 'messages' - 'pending') || jsonb_build_object(
    'pending', '[]'::jsonb,
    'messages', CASE
      WHEN snapshot->'messages'->-1->>'role' = 'assistant'
        AND jsonb_typeof(snapshot->'messages'->-1->'content') = 'string'
      THEN jsonb_build_array(jsonb_build_object('role', 'assistant', 'content', snapshot->'messages'->-1->'content'))
      ELSE '[]'::jsonb END)
  WHERE status IN ('completed', 'failed', 'stopped') AND jsonb_typeof(snapshot) = 'object';
--> statement-breakpoint
-- A decided or expired approval stored before the rule kept the raw arguments and the plain call
-- hash (guessable for small values); the key that would turn it into the keyed form is not in the
-- database, so both are cleared. A pending one keeps them: its click is refused (a plain hash binds
-- nothing) and it expires as usual, when its arguments are redacted and its hash keyed.
UPDATE approvals SET args = '{}'::jsonb, args_sha256 = 'cleared'
  WHERE status <> 'pending' AND args_sha256 NOT LIKE 'hmac-sha256:%';
