import type { Database } from "./db.ts";
import { sql } from "./drizzle.ts";

export interface ClaimRow {
  eventId: string;
  sessionKey: string | null;
  /** The row's payload as storable JSON text (`storableJsonText`): the batch's JSON is joined from it. */
  payloadJson?: string;
}

/** Rows per statement: far below Postgres' 65,535 parameters, and a burst rarely has more. */
const MAX_ROWS = 500;

/**
 * Statements in flight at once. While they are, the claims that come in wait and go together in the
 * next one (group commit): a burst read a few requests per turn of the event loop would otherwise
 * become one single-row statement (a round trip, a commit, a pool checkout) per request.
 */
const MAX_IN_FLIGHT = 2;

/**
 * First claims of events, batched: every claim asked for in one turn of the event loop (a burst of
 * deliveries read from their sockets together) goes to Postgres as one `INSERT … SELECT FROM
 * jsonb_array_elements(…) ON CONFLICT DO NOTHING RETURNING`, so 200 acks wait for a few statements, not for 200 round trips on
 * a pool of a few connections. At most `maxInFlight` statements run at once; claims made meanwhile go
 * in the next one as soon as one returns (a lone claim goes at once). Each row is as durable as alone
 * (the statement commits them all).
 * Resolves true for the caller whose row went in; false when the event id was there already (or
 * came twice in the batch: the first caller has it). A failed statement fails its batch's claims.
 */
export function createClaimBatcher(db: Database, { maxInFlight = MAX_IN_FLIGHT } = {}) {
  let pending: Array<{
    row: ClaimRow;
    resolve: (inserted: boolean) => void;
    reject: (err: unknown) => void;
  }> = [];

  async function flush(batch: typeof pending): Promise<void> {
    const first = new Map<string, ClaimRow>();
    for (const { row } of batch) if (!first.has(row.eventId)) first.set(row.eventId, row);
    try {
      const inserted = new Set<string>();
      const rows = [...first.values()];
      for (let i = 0; i < rows.length; i += MAX_ROWS) {
        // One jsonb parameter for the whole batch, not three per row: building and binding a
        // 200-row insert through the query builder cost more CPU than everything else in an ack.
        // Joined from each row's JSON text: its payload is serialized once, by the claim.
        const slice = rows
          .slice(i, i + MAX_ROWS)
          .map(rowJson)
          .join(",");
        const returned = await db.execute<{ event_id: string }>(sql`
          INSERT INTO slack_events (event_id, session_key, payload)
          SELECT e->>'eventId', e->>'sessionKey', e->'payload'
          FROM jsonb_array_elements(${`[${slice}]`}::jsonb) AS e
          ON CONFLICT (event_id) DO NOTHING
          RETURNING event_id`);
        for (const r of returned.rows) inserted.add(r.event_id);
      }
      for (const { row, resolve } of batch) {
        const mine = first.get(row.eventId) === row && inserted.has(row.eventId);
        resolve(mine);
      }
    } catch (err) {
      for (const { reject } of batch) reject(err);
    }
  }

  const rowJson = ({ eventId, sessionKey, payloadJson }: ClaimRow): string =>
    `{"eventId":${JSON.stringify(eventId)},"sessionKey":${JSON.stringify(sessionKey)}${
      payloadJson === undefined ? "" : `,"payload":${payloadJson}`
    }}`;

  let scheduled = false;
  let inFlight = 0;
  // On the next turn of the event loop, so the claims read with this one join the statement.
  function schedule(): void {
    if (scheduled || pending.length === 0 || inFlight >= maxInFlight) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      const batch = pending;
      pending = [];
      inFlight++;
      void flush(batch).finally(() => {
        inFlight--;
        schedule();
      });
    });
  }

  return (row: ClaimRow): Promise<boolean> =>
    new Promise((resolve, reject) => {
      pending.push({ row, resolve, reject });
      schedule();
    });
}
