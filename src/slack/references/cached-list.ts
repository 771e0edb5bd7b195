/** How a caller reads a cached list. */
export interface ListRead {
  /**
   * After a miss: when the stored list is stale, wait for its one refresh (the one already running,
   * or a new one) and return that; a list still within its time is returned as it is.
   */
  fresh?: boolean;
}

export type CachedList<T> = (read?: ListRead) => Promise<T[]>;

/**
 * A list served stale-while-revalidate: only the very first fetch is waited for; afterwards every
 * caller gets the stored list at once, and a list older than `ttlMs` starts one background refresh
 * (one at a time, however many callers) whose result replaces it. A failed refresh keeps the old
 * list (reported to `onRefreshError`) and the next stale read tries again; a failed first fetch is
 * not kept either, so the next caller fetches anew.
 */
export function cachedList<T>(
  fetch: () => Promise<T[]>,
  {
    ttlMs,
    now = Date.now,
    onRefreshError,
  }: { ttlMs: number; now?: () => number; onRefreshError?: (err: unknown) => void },
): CachedList<T> {
  let stored: { at: number; items: T[] } | undefined;
  // The one fetch running: the first (which may fail: its callers see why) or a refresh (which
  // never fails: it falls back to the list it was replacing).
  let inFlight: Promise<T[]> | undefined;

  const run = (onError: (err: unknown) => T[]): Promise<T[]> => {
    inFlight ??= fetch()
      .then((items) => {
        stored = { at: now(), items };
        return items;
      }, onError)
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };

  return (read = {}) => {
    if (!stored) {
      return run((err) => {
        throw err;
      });
    }
    if (now() - stored.at < ttlMs) return Promise.resolve(stored.items);
    const kept = stored.items;
    const refreshed = run((err) => {
      onRefreshError?.(err);
      return kept;
    });
    return read.fresh ? refreshed : Promise.resolve(kept);
  };
}
