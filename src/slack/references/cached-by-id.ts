export interface CachedByIdOptions {
  /** How long an object Slack found is kept. */
  ttlMs?: number;
  /** How long "no such id" is kept: shorter, so a person or channel added after a miss is found soon. */
  absentTtlMs?: number;
  /** Ids kept at most; the oldest answer is dropped first. Ids come from what people and models write. */
  maxEntries?: number;
  now?: () => number;
}

/**
 * One Slack object by its id (`users.info`, `conversations.info`), cached per id: an id checked once
 * is not asked again for minutes, and a burst of look-ups of one id shares one request. `fetch`
 * answers undefined when Slack says the id does not exist; that answer is kept for `absentTtlMs`.
 * A failed request (rate limit, network) is not kept: the next look-up asks again. A `fresh` read
 * skips what is kept (but still shares a request already in flight) and keeps its answer.
 */
export function cachedById<T>(
  fetch: (id: string) => Promise<T | undefined>,
  options: CachedByIdOptions = {},
): (id: string, read?: { fresh?: boolean }) => Promise<T | undefined> {
  const ttlMs = options.ttlMs ?? 10 * 60_000;
  const absentTtlMs = options.absentTtlMs ?? 60_000;
  const maxEntries = options.maxEntries ?? 5_000;
  const now = options.now ?? Date.now;
  const answers = new Map<string, { at: number; value: T | undefined }>();
  const inFlight = new Map<string, Promise<T | undefined>>();

  function keep(id: string, value: T | undefined): void {
    answers.delete(id); // re-inserted last: Map order is then oldest first
    answers.set(id, { at: now(), value });
    if (answers.size > maxEntries) {
      const oldest = answers.keys().next();
      if (!oldest.done) answers.delete(oldest.value);
    }
  }

  return (id, read = {}) => {
    const hit = read.fresh ? undefined : answers.get(id);
    if (hit && now() - hit.at < (hit.value === undefined ? absentTtlMs : ttlMs))
      return Promise.resolve(hit.value);
    const pending = inFlight.get(id);
    if (pending) return pending;
    const asked = fetch(id)
      .then((value) => {
        keep(id, value);
        return value;
      })
      .finally(() => inFlight.delete(id));
    inFlight.set(id, asked);
    return asked;
  };
}
