import { storableString } from "../core/canonical-json.ts";
import type { Database } from "../store/db.ts";
import { eq } from "../store/drizzle.ts";
import { newId } from "../store/ids.ts";
import { results } from "../store/schema.ts";
import { withStorageErrors } from "../store/storage-errors.ts";
import type { ResultStore } from "./result-store.ts";

/**
 * Full tool results in Postgres `results` (the ref is the row id), so `fetch_result` works from any
 * replica and after a restart. A row without a session key (written before it was stored) belongs
 * to no conversation, so `fetch_result` refuses it.
 */
export function createPgResultStore({ db }: { db: Database }): ResultStore {
  return withStorageErrors(
    {
      async put(entry) {
        const ref = newId("res");
        await db.insert(results).values({
          id: ref,
          runId: entry.runId,
          sessionKey: entry.sessionKey,
          toolCallId: entry.toolCallId,
          tool: entry.tool,
          // Postgres text cannot hold NUL or lone surrogates; they become U+FFFD.
          content: storableString(entry.content),
        });
        return ref;
      },

      async get(ref) {
        const [row] = await db.select().from(results).where(eq(results.id, ref));
        if (!row) return undefined;
        return {
          ref: row.id,
          runId: row.runId ?? "",
          sessionKey: row.sessionKey ?? "",
          toolCallId: row.toolCallId ?? "",
          tool: row.tool,
          content: row.content,
        };
      },
    },
    "tool results",
  );
}
