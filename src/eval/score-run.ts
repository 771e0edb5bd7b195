import { argsMismatches } from "./match-args.ts";
import type { ExpectedCall, Scenario } from "./scenario-schema.ts";
import type { RecordedCall, RunRecord } from "./scenario-transcript.ts";

/** One expectation and whether the run met it; `detail` says what happened instead. */
export interface Check {
  name: string;
  ok: boolean;
  detail?: string;
}

export interface RunScore {
  passed: boolean;
  checks: Check[];
  /** Expected calls made plus forbidden calls avoided, out of all such expectations. */
  toolChoice: { correct: number; total: number };
  /** Calls whose arguments validated (and named a real tool), out of all calls. */
  argValidity: { valid: number; total: number };
}

const list = (calls: RecordedCall[]) => (calls.length ? calls.map((c) => c.tool).join(", ") : "no calls");

function expectedCallCheck(expected: ExpectedCall, calls: RecordedCall[]): Check {
  const name = `calls ${expected.tool}`;
  const same = calls.filter((c) => c.tool === expected.tool && c.outcome !== "invalid");
  if (same.length === 0) return { name, ok: false, detail: `not called (made: ${list(calls)})` };
  const mismatches = same.map((c) => argsMismatches(expected.args, c.args));
  if (mismatches.some((m) => m.length === 0)) return { name, ok: true };
  return { name, ok: false, detail: `called with other arguments: ${mismatches[0]?.join("; ")}` };
}

function forbiddenCheck(forbidden: string | ExpectedCall, calls: RecordedCall[]): Check {
  const rule = typeof forbidden === "string" ? { tool: forbidden } : forbidden;
  const name = `never ${rule.tool}${rule.args ? " (with those arguments)" : ""}`;
  const hit = calls.find(
    (c) => c.tool === rule.tool && c.outcome !== "invalid" && argsMismatches(rule.args, c.args).length === 0,
  );
  // A forbidden call policy refused still counts: the model chose it.
  return hit ? { name, ok: false, detail: `called ${rule.tool} (${hit.outcome})` } : { name, ok: true };
}

/** Scores one run of a scenario against its expectations; passed = every check ok and the run did not error. */
export function scoreRun(scenario: Scenario, record: RunRecord): RunScore {
  const e = scenario.expect;
  const checks: Check[] = [];
  if (record.error) checks.push({ name: "run completes", ok: false, detail: record.error });
  const callChecks = e.calls.map((c) => expectedCallCheck(c, record.calls));
  const forbiddenChecks = e.forbidden.map((f) => forbiddenCheck(f, record.calls));
  checks.push(...callChecks, ...forbiddenChecks);
  if (e.approval !== undefined) {
    const paused = record.approvalsRequested > 0;
    checks.push({
      name: e.approval ? "asks for approval" : "no approval needed",
      ok: paused === e.approval,
      ...(paused === e.approval
        ? {}
        : { detail: paused ? "the run paused for approval" : "no approval asked" }),
    });
  }
  if (e.denial !== undefined) {
    const denied = record.denials > 0;
    checks.push({
      name: e.denial ? "policy denies a call" : "no call denied",
      ok: denied === e.denial,
      ...(denied === e.denial
        ? {}
        : { detail: denied ? `${record.denials} call(s) denied` : "nothing denied" }),
    });
  }
  const answer = record.answer.toLowerCase();
  for (const text of e.answer?.contains ?? []) {
    const ok = answer.includes(text.toLowerCase());
    checks.push({ name: `answer has "${text}"`, ok, ...(ok ? {} : { detail: preview(record.answer) }) });
  }
  for (const text of e.answer?.not_contains ?? []) {
    const ok = !answer.includes(text.toLowerCase());
    checks.push({ name: `answer lacks "${text}"`, ok, ...(ok ? {} : { detail: preview(record.answer) }) });
  }
  if (e.max_steps !== undefined) {
    const ok = record.steps <= e.max_steps;
    checks.push({
      name: `at most ${e.max_steps} steps`,
      ok,
      ...(ok ? {} : { detail: `${record.steps} steps` }),
    });
  }
  const invalid = record.calls.filter((c) => c.outcome === "invalid").length;
  const total = record.calls.length + record.invalidCalls - invalid;
  return {
    passed: checks.every((c) => c.ok),
    checks,
    toolChoice: {
      // The right tool with wrong arguments is still the right choice (argument checks say the rest).
      correct:
        e.calls.filter((c) => record.calls.some((r) => r.tool === c.tool && r.outcome !== "invalid")).length +
        forbiddenChecks.filter((c) => c.ok).length,
      total: callChecks.length + forbiddenChecks.length,
    },
    argValidity: { valid: total - record.invalidCalls, total },
  };
}

function preview(text: string): string {
  const one = text.replace(/\s+/g, " ").trim();
  return `answer was: "${one.length > 120 ? `${one.slice(0, 120)}…` : one}"`;
}
