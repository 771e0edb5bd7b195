import type { Decision, RunSnapshot } from "../agent/run/snapshot.ts";
import { argsSha256 } from "../core/args-hash.ts";

/** The keyed binding of a call (`ApprovalStore.binding`). */
export type CallBinding = (tool: string, args: unknown) => string;

/** What a pending call's hash becomes when its stored binding does not verify: no call hashes to it. */
const UNVERIFIED = "unverified";

/**
 * A paused run's snapshot as stored: each pending call carries its keyed binding instead of the plain
 * hash the loop works with, so `runs.snapshot` never holds a hash that could be brute-forced.
 */
export function sealPending(snapshot: RunSnapshot, binding: CallBinding): RunSnapshot {
  return {
    ...snapshot,
    pending: snapshot.pending.map((p) => ({ ...p, argsSha256: binding(p.tool, p.args) })),
  };
}

/**
 * The stored snapshot and decisions of a run about to resume, back in the loop's terms: a pending
 * call whose stored arguments still match both its own stored binding and its approval's gets its
 * plain hash back; any other gets a value no call hashes to, so the loop refuses to run it
 * ("arguments changed since approval", audited as `tool.denied`).
 */
export function unsealForResume(
  snapshot: RunSnapshot,
  decisions: Record<string, Decision>,
  binding: CallBinding,
): { snapshot: RunSnapshot; decisions: Record<string, Decision> } {
  const out: Record<string, Decision> = { ...decisions };
  const pending = snapshot.pending.map((p) => {
    const expected = binding(p.tool, p.args);
    const plain = argsSha256(p.tool, p.args);
    const decision = decisions[p.callId];
    if (decision)
      out[p.callId] = { ...decision, argsSha256: decision.argsSha256 === expected ? plain : UNVERIFIED };
    return { ...p, argsSha256: p.argsSha256 === expected ? plain : UNVERIFIED };
  });
  return { snapshot: { ...snapshot, pending }, decisions: out };
}
