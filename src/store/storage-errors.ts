import { HermesError, isHermesError } from "../core/errors.ts";

type Method = (...args: unknown[]) => Promise<unknown>;

/**
 * Wraps every method of a Postgres-backed store so that a driver failure (database down, connection
 * lost, a constraint) reaches callers as one `HermesError("storage_unavailable")` with a sentence a
 * Slack user can read, and the driver error as `cause` for the log. Callers fail closed on it.
 * HermesErrors the store raised on purpose pass through unchanged.
 */
export function withStorageErrors<T extends object>(store: T, what: string): T {
  const wrapped: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(store)) {
    if (typeof value !== "function") {
      wrapped[key] = value;
      continue;
    }
    const method = value as Method;
    wrapped[key] = async (...args: unknown[]) => {
      try {
        return await method.apply(store, args);
      } catch (err) {
        if (isHermesError(err)) throw err;
        throw new HermesError(
          "storage_unavailable",
          `Hermes could not reach its database (${what}), so this was not done. Try again in a moment.`,
          { cause: err },
        );
      }
    };
  }
  return wrapped as T;
}
