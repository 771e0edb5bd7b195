/**
 * An immutable string-keyed map kept in a fixed number of small buckets, so that setting a key copies
 * one bucket and the bucket list, not every entry: a pure reducer can replace one of a run's hundreds
 * of tool rows per event without its cost growing with the run. Entries come out in no set order.
 */
export type ChunkedMap<V> = readonly (readonly Entry<V>[])[];

type Entry<V> = readonly [string, V];

/** Buckets: a run's few hundred calls leave a handful of entries in each. */
const BUCKETS = 32;

export const emptyChunkedMap: ChunkedMap<never> = [];

function bucketOf(key: string): number {
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (h * 31 + key.charCodeAt(i)) | 0;
  return (h >>> 0) % BUCKETS;
}

export function chunkedGet<V>(m: ChunkedMap<V>, key: string): V | undefined {
  const entries = m[bucketOf(key)];
  if (!entries) return undefined;
  for (const [k, v] of entries) if (k === key) return v;
  return undefined;
}

export function chunkedSet<V>(m: ChunkedMap<V>, key: string, value: V): ChunkedMap<V> {
  const b = bucketOf(key);
  const out = m.length === 0 ? Array.from({ length: BUCKETS }, (): readonly Entry<V>[] => []) : m.slice();
  const entries = (out[b] ?? []).slice();
  const at = entries.findIndex(([k]) => k === key);
  if (at >= 0) entries[at] = [key, value];
  else entries.push([key, value]);
  out[b] = entries;
  return out;
}

export function chunkedValues<V>(m: ChunkedMap<V>): V[] {
  return m.flatMap((entries) => entries.map(([, v]) => v));
}
