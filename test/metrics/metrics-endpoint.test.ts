import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHermesMetrics } from "../../src/metrics/hermes-metrics.ts";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { answer, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";
import { parsePrometheusText, type Sample, sampleValue } from "./prometheus-text.ts";

const TOKEN = "metrics-token-for-tests";
const CHANNEL = "C0OPS";

/**
 * `/metrics` end to end: the real receiver and worker on Postgres, the Slack emulator and the
 * scripted model (priced, so cost is counted). One mention with a tool call moves the counters.
 */
describe("GET /metrics", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  const url = () => `http://127.0.0.1:${t.hermes.port}/metrics`;
  const scrape = async (): Promise<Sample[]> => {
    const res = await fetch(url(), { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    return parsePrometheusText(await res.text());
  };

  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({
      model,
      env: { HERMES_METRICS_TOKEN: TOKEN, HERMES_MODEL_PRICES: "scripted=1/2" },
    });
  }, 180_000);
  afterAll(async () => {
    await t?.stop();
    await model.stop();
  });

  it("answers only with the token when one is set", async () => {
    expect((await fetch(url())).status).toBe(401);
    const wrong = await fetch(url(), { headers: { authorization: "Bearer not-the-token" } });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain("HERMES_METRICS_TOKEN");
    // /healthz stays open.
    expect((await fetch(`http://127.0.0.1:${t.hermes.port}/healthz?live`)).status).toBe(200);
  });

  it("moves with a turn: outcome, model calls, tokens, cost, 429s, audit appends; gauges present", async () => {
    const before = await scrape();
    const completed = sampleValue(before, "hermes_turns_total", { outcome: "completed" }) ?? 0;
    const calls = sampleValue(before, "hermes_model_call_duration_seconds_count", { model: "scripted" }) ?? 0;
    const prompt =
      sampleValue(before, "hermes_model_tokens_total", { model: "scripted", kind: "prompt" }) ?? 0;
    const appends = sampleValue(before, "hermes_audit_append_duration_seconds_count") ?? 0;
    // Process metrics from prom-client's defaults.
    expect(sampleValue(before, "process_cpu_user_seconds_total")).toBeGreaterThanOrEqual(0);
    expect(sampleValue(before, "nodejs_eventloop_lag_seconds")).toBeGreaterThanOrEqual(0);

    // The first chat.postMessage (the working message or the answer) is answered 429 once.
    t.emulator.faults.rateLimit("chat.postMessage", { times: 1, retryAfterSeconds: 1 });
    model.enqueue(toolCalls([{ name: "get_current_time", args: {} }]), answer("It is now."));
    const sent = await t.sender.appMention({ user: "U0USER1", channel: CHANNEL, text: "<@U0HERMES> time?" });
    const ts = sent.message!.ts;
    await waitFor(
      () => t.thread(CHANNEL, ts)?.find((m) => m.user === "U0HERMES" && m.text === "It is now."),
      30_000,
      "the answer",
    );
    const after = await waitFor(
      async () => {
        const s = await scrape();
        return (sampleValue(s, "hermes_turns_total", { outcome: "completed" }) ?? 0) > completed
          ? s
          : undefined;
      },
      30_000,
      "the completed turn counted",
    );

    expect(sampleValue(after, "hermes_turns_total", { outcome: "completed" })).toBe(completed + 1);
    expect(sampleValue(after, "hermes_turns_total", { outcome: "failed" })).toBe(0);
    expect(
      sampleValue(after, "hermes_turn_duration_seconds_count", { model: "scripted", outcome: "completed" }),
    ).toBe(completed + 1);
    expect(sampleValue(after, "hermes_model_call_duration_seconds_count", { model: "scripted" })).toBe(
      calls + 2,
    );
    // The scripted model reports 100 prompt and 20 completion tokens a call; priced 1 and 2 USD per 1M.
    expect(sampleValue(after, "hermes_model_tokens_total", { model: "scripted", kind: "prompt" })).toBe(
      prompt + 200,
    );
    expect(
      sampleValue(after, "hermes_model_tokens_total", { model: "scripted", kind: "completion" }),
    ).toBeGreaterThanOrEqual(40);
    expect(sampleValue(after, "hermes_model_cost_usd_total", { model: "scripted" })).toBeGreaterThanOrEqual(
      (200 * 1 + 40 * 2) / 1_000_000 - 1e-12,
    );
    expect(
      sampleValue(after, "hermes_slack_rate_limited_total", { method: "chat.postMessage" }),
    ).toBeGreaterThanOrEqual(1);
    expect(sampleValue(after, "hermes_audit_append_duration_seconds_count")).toBeGreaterThan(appends);
    for (const state of ["waiting", "active", "delayed"]) {
      expect(sampleValue(after, "hermes_queue_jobs", { state })).toBeGreaterThanOrEqual(0);
    }
    for (const state of ["waiting", "active"]) {
      expect(sampleValue(after, "hermes_queue_oldest_job_age_seconds", { state })).toBeGreaterThanOrEqual(0);
    }
    expect(sampleValue(after, "hermes_approvals_pending")).toBe(0);
  });

  it("keeps one registry per process: two in one process do not collide", async () => {
    const a = createHermesMetrics({ prices: {}, model: "m" });
    const b = createHermesMetrics({ prices: {}, model: "m" });
    a.turnFinished("stopped", 1);
    const parsed = parsePrometheusText(await b.registry.metrics());
    expect(sampleValue(parsed, "hermes_turns_total", { outcome: "stopped" })).toBe(0);
    expect(
      sampleValue(parsePrometheusText(await a.registry.metrics()), "hermes_turns_total", {
        outcome: "stopped",
      }),
    ).toBe(1);
  });
});
