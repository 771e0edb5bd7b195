import { randomBytes } from "node:crypto";

export interface StoredResult {
  ref: string;
  runId: string;
  sessionKey: string;
  toolCallId: string;
  tool: string;
  content: string;
}

/** Keeps full tool results that were capped for the model, so `fetch_result` can page through them. */
export interface ResultStore {
  put(entry: Omit<StoredResult, "ref">): Promise<string>;
  get(ref: string): Promise<StoredResult | undefined>;
}

export const newResultRef = () => `res_${randomBytes(9).toString("base64url")}`;

/** In-process ResultStore (CLI, tests, the embedded default before Postgres is wired). Bounded. */
export function createMemoryResultStore(maxEntries = 1000): ResultStore {
  const entries = new Map<string, StoredResult>();
  return {
    async put(entry) {
      const ref = newResultRef();
      entries.set(ref, { ref, ...entry });
      if (entries.size > maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
      return ref;
    },
    async get(ref) {
      return entries.get(ref);
    },
  };
}
