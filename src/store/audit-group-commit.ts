/**
 * Group commit: appends that arrive while a write is in flight are written together by the next one,
 * in arrival order, in one transaction. A team's audit chain is one sequence under one lock (the
 * audit log keeps one group commit per chain, `audit.ts`), so each
 * transaction pays the lock, the head read and the commit (an fsync) once; batching them turns a
 * lock-bound rate into one bounded by rows per commit. One write is in flight at a time per log
 * object; other processes' writes still take turns with it on the database lock.
 *
 * A failed write rejects every append of its batch (nothing of it committed, or — a commit that
 * failed in flight — nobody knows: no append is retried here, so none can be written twice).
 */
export function createGroupCommit<E, R>(
  write: (batch: E[]) => Promise<R[]>,
  options: { maxBatch?: number } = {},
): (event: E) => Promise<R> {
  const maxBatch = options.maxBatch ?? 200;
  const queue: Array<{ event: E; resolve: (row: R) => void; reject: (err: unknown) => void }> = [];
  let writing = false;

  async function drain() {
    writing = true;
    try {
      while (queue.length > 0) {
        const batch = queue.splice(0, maxBatch);
        try {
          const rows = await write(batch.map((b) => b.event));
          if (rows.length !== batch.length)
            throw new Error(`group commit: ${rows.length} rows for ${batch.length} events`);
          for (const [i, b] of batch.entries()) b.resolve(rows[i]!);
        } catch (err) {
          for (const b of batch) b.reject(err);
        }
      }
    } finally {
      writing = false;
    }
  }

  return (event) =>
    new Promise<R>((resolve, reject) => {
      queue.push({ event, resolve, reject });
      if (!writing) void drain();
    });
}
