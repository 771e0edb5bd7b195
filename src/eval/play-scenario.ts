import { randomInt } from "node:crypto";
import type { ChatMessage } from "../agent/context/messages.ts";
import type { ChatModel } from "../agent/model/chat-model.ts";
import { runtimeDepsFor } from "../agent/run/agent-runtime.ts";
import { type Limits, resumeRun, runTurn, type TurnResult } from "../agent/run/loop.ts";
import type { ToolEvent } from "../agent/run/policy-hook.ts";
import type { Decision } from "../agent/run/snapshot.ts";
import type { TraceEvent } from "../agent/run/trace.ts";
import { errorMessage } from "../core/errors.ts";
import { resolveAccess } from "../policy/resolve-access.ts";
import { DEMO } from "../sandbox/seed-demo-workspace.ts";
import { type EvalEnvironment, REQUESTERS } from "./eval-environment.ts";
import type { Scenario } from "./scenario-schema.ts";
import type { RecordedCall, RunRecord } from "./scenario-transcript.ts";
import type { ScriptedModelServer } from "./scripted-model-server.ts";

/** One configuration under test: its model (and, when scripted, the server that plays it). */
export interface EvalTarget {
  label: string;
  model: ChatModel;
  systemPrompt?: string;
  /** The turn limits, as the bot runs with them (HERMES_MAX_STEPS, …). */
  limits?: Partial<Limits>;
  /** Set for `--scripted`: each scenario's `script` is loaded into it before the run. */
  scripted?: ScriptedModelServer;
}

export type TargetTools = Awaited<ReturnType<EvalEnvironment["toolsFor"]>>;

/** Trace events that mean the model's output needed fixing before it could be used. */
const REPAIR_EVENTS = new Set([
  "tool.repair",
  "tool.coerced",
  "tool.dropped_keys",
  "model.format",
  "model.unrecovered",
]);

/** Tool events of a run folded into its calls, in the order they were asked for. */
function callRecorder() {
  const calls = new Map<string, RecordedCall>();
  let denials = 0;
  return {
    calls,
    get denials() {
      return denials;
    },
    /** Calls the run stopped on, waiting for a human (they stay so unless approved). */
    markPending(callIds: string[]) {
      for (const id of callIds) {
        const call = calls.get(id);
        if (call?.outcome === "requested") call.outcome = "pending";
      }
    },
    onEvent(e: ToolEvent) {
      const call = calls.get(e.callId) ?? {
        callId: e.callId,
        tool: e.tool,
        args: e.args,
        outcome: "requested",
      };
      calls.set(e.callId, call);
      if (e.action === "tool.denied") {
        denials++;
        call.outcome = "denied";
      } else if (e.action === "tool.executed") call.outcome = "executed";
      else if (e.action === "tool.failed")
        call.outcome = e.error === "invalid arguments" ? "invalid" : "failed";
    },
  };
}

/**
 * Runs one scenario through the real runtime: each message a turn in one thread, on behalf of a
 * demo user with the scenario's level, with the built-in tools, policy and audit. A run that pauses
 * for approval is approved and continued when the scenario says `approve: true`; otherwise it stays
 * paused and later messages are not sent.
 */
export async function runScenario(
  env: EvalEnvironment,
  target: EvalTarget,
  tools: TargetTools,
  scenario: Scenario,
): Promise<RunRecord> {
  await env.reset();
  const userId = REQUESTERS[scenario.requester];
  await env.users.upsert({ id: userId, level: scenario.requester });
  target.scripted?.load(scenario.script ?? []);
  const access = await resolveAccess(
    { users: env.users, config: tools.config, registry: tools.registry, guards: tools.guards },
    userId,
  );
  const allowed = scenario.tools
    ? new Set(scenario.tools.filter((t) => access.allowed.has(t)))
    : access.allowed;
  const recorder = callRecorder();
  const trace: TraceEvent[] = [];
  const record: RunRecord = {
    runIds: [],
    calls: [],
    invalidCalls: 0,
    approvalsRequested: 0,
    denials: 0,
    repairs: 0,
    answer: "",
    status: "completed",
    steps: 0,
    modelCalls: 0,
    promptTokens: 0,
    completionTokens: 0,
    latencyMs: 0,
    models: [],
    usageByCall: [],
  };
  const controller = new AbortController();
  const deps = {
    ...runtimeDepsFor(
      {
        model: target.model,
        registry: tools.registry,
        auditSink: tools.auditSink,
        limits: target.limits ?? {},
        logger: env.logger,
      },
      { userId, policy: access.policy, allowed },
      controller.signal,
    ),
    ...(target.systemPrompt ? { systemPrompt: target.systemPrompt } : {}),
    onTraceEvent: (e: TraceEvent) => trace.push(e),
  };
  const channelId = scenario.channel ?? DEMO.ops;
  const threadTs = `${Math.floor(Date.now() / 1000)}.${String(randomInt(1_000_000)).padStart(6, "0")}`;
  const run = {
    sessionKey: `${DEMO.team}:${channelId}:${threadTs}`,
    userId,
    teamId: DEMO.team,
    channelId,
    threadTs,
  };
  const started = performance.now();
  env.recordTo((e) => recorder.onEvent(e));
  try {
    let history: ChatMessage[] = [];
    for (const message of scenario.messages) {
      let result: TurnResult = await runTurn({ run, history, userMessage: message }, deps);
      record.runIds.push(result.runId);
      while (result.status === "paused" && result.snapshot) {
        record.approvalsRequested++;
        recorder.markPending(result.snapshot.pending.map((p) => p.callId));
        if (!scenario.approve) break;
        const decisions: Record<string, Decision> = {};
        for (const p of result.snapshot.pending)
          decisions[p.callId] = { status: "approved", by: userId, argsSha256: p.argsSha256 };
        result = await resumeRun(result.snapshot, decisions, deps);
      }
      record.answer = result.answer;
      record.status = result.status;
      record.steps += result.steps;
      record.modelCalls += result.modelCalls;
      record.promptTokens += result.usage.promptTokens;
      record.completionTokens += result.usage.completionTokens;
      history = result.messages;
      if (result.status === "paused") break;
    }
  } catch (err) {
    record.status = "failed";
    record.error = errorMessage(err);
  } finally {
    env.recordTo(undefined);
  }
  record.latencyMs = Math.round(performance.now() - started);
  record.calls = [...recorder.calls.values()];
  record.denials = recorder.denials;
  record.invalidCalls =
    record.calls.filter((c) => c.outcome === "invalid").length +
    trace.filter((e) => e.event === "tool.unknown").length;
  for (const e of trace) {
    if (REPAIR_EVENTS.has(e.event)) record.repairs++;
    if (e.event === "model.response") {
      record.repairs += Array.isArray(e.repairs) ? e.repairs.length : 0;
      const names = [e.answeredBy, e.model].filter((n): n is string => typeof n === "string" && n !== "");
      const answered = names[0];
      if (answered && !record.models.includes(answered)) record.models.push(answered);
      const usage = (e.usage ?? {}) as { promptTokens?: number; completionTokens?: number };
      record.usageByCall.push({
        models: [...new Set(names)],
        promptTokens: usage.promptTokens ?? 0,
        completionTokens: usage.completionTokens ?? 0,
      });
    }
  }
  return record;
}
