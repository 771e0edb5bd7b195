/**
 * A list fetched at most once per `ttlMs`: callers inside the window share the stored list, and
 * callers that arrive while a fetch runs share that fetch (one request for N look-ups). A failed
 * fetch is not kept: the next caller tries again.
 */
export function cachedList<T>(
  fetch: () => Promise<T[]>,
  { ttlMs, now = Date.now }: { ttlMs: number; now?: () => number },
): () => Promise<T[]> {
  let stored: { at: number; items: T[] } | undefined;
  let inFlight: Promise<T[]> | undefined;
  return () => {
    if (stored && now() - stored.at < ttlMs) return Promise.resolve(stored.items);
    inFlight ??= fetch()
      .then((items) => {
        stored = { at: now(), items };
        return items;
      })
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };
}
