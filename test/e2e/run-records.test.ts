import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { validateBlocks } from "../../src/sandbox/validate-blocks.ts";
import type { SandboxMessage } from "../../src/sandbox/workspace-types.ts";
import { runNotFound } from "../../src/slack/commands/runs-answer.ts";
import { sql } from "../../src/store/drizzle.ts";
import type { RunDetail } from "../../src/store/run-query.ts";
import { blocksText } from "../helpers/bolt-app.ts";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { execSql } from "../helpers/pg.ts";
import { answer, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";

type Block = { type: string; elements?: Array<{ value?: string }> };

const botReplies = (t: TestHermes, channel: string, ts: string) =>
  (t.thread(channel, ts) ?? []).filter((m) => m.user === "U0HERMES" && m.ts !== ts);
const cardOf = (t: TestHermes, channel: string, ts: string) =>
  botReplies(t, channel, ts).find((m) => ((m.blocks ?? []) as Block[]).some((b) => b.type === "actions"));
const approvalIdOf = (card: SandboxMessage) =>
  ((card.blocks as Block[]).find((b) => b.type === "actions")!.elements![0]!.value ?? "") as string;

// Scripted usage per call: 100 prompt + 20 completion tokens; priced at 1 / 2 USD per 1M tokens.
const CALL_COST = (100 * 1 + 20 * 2) / 1_000_000;

/**
 * A run's record (`runs` + `run_steps`, read through `runQuery`) matches what happened, end to end
 * through the Bolt receiver, the Slack emulator, Postgres and the scripted model.
 */
describe("runs as records, through Bolt", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({ model, env: { HERMES_MODEL_PRICES: "scripted=1/2" } });
  }, 180_000);
  afterAll(async () => {
    await t?.stop();
    await model.stop();
  });
  beforeEach(() => {
    model.reset();
  });

  /** The one run of a thread, once `done` says it has reached the state the test waits for. */
  async function runOfThread(ts: string, done: (r: RunDetail) => boolean): Promise<RunDetail> {
    return waitFor(
      async () => {
        const [row] = await execSql<{ id: string }>(
          t.hermes.services.storage.db.db,
          `SELECT id FROM runs WHERE thread_ts = '${ts}' ORDER BY created_at`,
        );
        const run = row ? await t.hermes.services.storage.runQuery.get(row.id) : undefined;
        return run && done(run) ? run : undefined;
      },
      30_000,
      `run record of thread ${ts}`,
    );
  }

  it("an answered run: request, totals, cost, time split and the model → tool → model timeline", async () => {
    model.enqueue(toolCalls([{ name: "get_current_time", args: {} }]), answer("It is noon."));
    const d = await t.sender.appMention({
      user: "U0USER1",
      channel: "C0OPS",
      text: "<@U0HERMES> what time is it? mail me at li.ming@example.com",
    });
    const ts = d.message!.ts;
    await waitFor(() => botReplies(t, "C0OPS", ts).find((m) => m.text === "It is noon."), 30_000, "answer");
    const run = await runOfThread(ts, (r) => r.status === "completed" && r.finishedAt !== null);
    expect(run).toMatchObject({
      sessionKey: `T0001:C0OPS:${ts}`,
      userId: "U0USER1",
      teamId: "T0001",
      channelId: "C0OPS",
      threadTs: ts,
      stopReason: null,
      models: ["scripted"],
      steps: 2,
      modelCalls: 2,
      promptTokens: 200,
      completionTokens: 40,
      approvalWaitMs: 0,
      feedback: { up: 0, down: 0 },
    });
    expect(run.requestText).toBe("what time is it? mail me at [email]");
    expect(run.costUsd).toBeCloseTo(2 * CALL_COST, 12);
    expect(run.wallMs).toBeGreaterThanOrEqual(run.modelMs + run.toolMs);
    expect(run.modelMs).toBeGreaterThan(0);
    expect(run.timeline.map((s) => [s.kind, s.name, s.status, s.step])).toEqual([
      ["model", "scripted", "ok", 1],
      ["tool", "get_current_time", "ok", 1],
      ["model", "scripted", "ok", 2],
    ]);
    expect(run.timeline.map((s) => s.seq)).toEqual([1, 2, 3]);
    const [first, tool] = run.timeline;
    expect(first).toMatchObject({ promptTokens: 100, completionTokens: 20 });
    expect(first!.costUsd).toBeCloseTo(CALL_COST, 12);
    expect(first!.data).toMatchObject({ finishReason: "tool_calls", toolCalls: ["get_current_time"] });
    expect(tool!.data).toMatchObject({ args: {}, policy: { decision: "allow" } });
    expect(String((tool!.data as { resultPreview?: string }).resultPreview)).not.toBe("");
    // The reference in a reply is this run's id (a finished run is listed under its requester).
    const mine = await t.hermes.services.storage.runQuery.list({ userId: "U0USER1", limit: 100 });
    expect(mine.map((r) => r.runId)).toContain(run.runId);
  });

  it("a paused, approved and resumed run is ONE record, with its approval wait and who decided", async () => {
    model.enqueue(
      toolCalls([
        {
          name: "send_message",
          args: {
            to: "<@U0WANGLEI>",
            text: "Join at three, token xoxb-123456789012-abcdefghijkl, ops@example.com",
          },
        },
      ]),
    );
    const d = await t.sender.appMention({
      user: "U0USER1",
      channel: "C0OPS",
      text: "<@U0HERMES> tell Wang Lei",
    });
    const ts = d.message!.ts;
    const card = await waitFor(() => cardOf(t, "C0OPS", ts), 30_000, "approval card");
    const paused = await runOfThread(
      ts,
      (r) => r.status === "paused" && r.timeline.some((s) => s.kind === "approval"),
    );
    const wait = paused.timeline.find((s) => s.kind === "approval")!;
    expect(wait).toMatchObject({ name: "send_message", status: "pending" });
    // Waiting takes a moment that must show as approval wait.
    await new Promise((r) => setTimeout(r, 150));
    model.enqueue(answer("Told Wang Lei."));
    await t.sender.blockAction({
      user: "U0USER1",
      actionId: "hermes.approve",
      value: approvalIdOf(card),
      channel: "C0OPS",
      messageTs: card.ts,
    });
    await waitFor(
      () => botReplies(t, "C0OPS", ts).find((m) => m.text === "Told Wang Lei."),
      30_000,
      "answer",
    );
    const run = await runOfThread(ts, (r) => r.status === "completed" && r.finishedAt !== null);
    expect(run.runId).toBe(paused.runId);
    const count = await execSql<{ n: number }>(
      t.hermes.services.storage.db.db,
      `SELECT count(*)::int AS n FROM runs WHERE thread_ts = '${ts}'`,
    );
    expect(count[0]!.n).toBe(1);
    expect(run.approvalWaitMs).toBeGreaterThanOrEqual(150);
    expect(run.wallMs).toBeGreaterThanOrEqual(run.approvalWaitMs);
    expect(run).toMatchObject({ steps: 2, modelCalls: 2, promptTokens: 200, completionTokens: 40 });
    const kinds = run.timeline.map((s) => [s.kind, s.name, s.status]);
    expect(kinds).toEqual([
      ["model", "scripted", "ok"],
      ["tool", "send_message", "pending"],
      ["approval", "send_message", "approved"],
      ["note", "resumed", null],
      ["tool", "send_message", "ok"],
      ["model", "scripted", "ok"],
    ]);
    const decided = run.timeline.find((s) => s.kind === "approval")!;
    expect(decided.durationMs).toBeGreaterThanOrEqual(150);
    expect(decided.data).toMatchObject({ approvalId: approvalIdOf(card), decidedBy: "U0USER1" });
    const ran = run.timeline[4]!;
    expect(ran.data).toMatchObject({
      policy: { decision: "allow", approved: true },
      approval: { approvalId: approvalIdOf(card), status: "approved", decidedBy: "U0USER1" },
    });
    // Redaction: neither the email nor the Slack token in the arguments reached run_steps.
    const raw = await execSql<{ data: unknown }>(
      t.hermes.services.storage.db.db,
      `SELECT data FROM run_steps WHERE run_id = '${run.runId}'`,
    );
    const stored = JSON.stringify(raw);
    expect(stored).not.toContain("ops@example.com");
    expect(stored).not.toContain("xoxb-123456789012");
    expect(stored).toContain("Join at three");
  });

  it("a denied call: the tool row says denied and why; the run still answers", async () => {
    model.enqueue(toolCalls([{ name: "delete_ticket", args: { id: 1 } }]), answer("I can't do that."));
    const d = await t.sender.appMention({
      user: "U0USER1",
      channel: "C0OPS",
      text: "<@U0HERMES> delete ticket 1",
    });
    const ts = d.message!.ts;
    await waitFor(
      () => botReplies(t, "C0OPS", ts).find((m) => m.text === "I can't do that."),
      30_000,
      "answer",
    );
    const run = await runOfThread(ts, (r) => r.status === "completed" && r.finishedAt !== null);
    const tool = run.timeline.find((s) => s.kind === "tool")!;
    expect(tool).toMatchObject({ name: "delete_ticket", status: "denied" });
    expect(JSON.stringify(tool.data)).toContain("delete_ticket needs level admin");
  });

  it("a failed run (the model answers 500): status failed, the stop reason, and the reply's reference is the run id", async () => {
    model.fallback = { status: 500 };
    const d = await t.sender.appMention({ user: "U0USER1", channel: "C0OPS", text: "<@U0HERMES> hi there" });
    const ts = d.message!.ts;
    const reply = await waitFor(
      () => botReplies(t, "C0OPS", ts).find((m) => m.text.includes("Reference")),
      30_000,
      "failure sentence",
    );
    const ref = /run `([^`]+)`/.exec(reply.text)![1]!;
    const run = await runOfThread(ts, (r) => r.status === "failed" && r.finishedAt !== null);
    expect(run.runId).toBe(ref);
    expect(run.stopReason).toBe("model_error");
    expect(run.modelCalls).toBe(0);
    expect(run.timeline.map((s) => [s.kind, s.status])).toEqual([["model", "error"]]);
    expect(String((run.timeline[0]!.data as { error?: string }).error)).toContain("500");
  });

  describe("/hermes run and /hermes runs", () => {
    const ephemerals = (user: string) => t.ws.ephemeralMessages("C0OPS", user);
    async function slash(user: string, text: string): Promise<SandboxMessage> {
      const before = ephemerals(user).length;
      expect((await t.sender.slashCommand({ user, channel: "C0OPS", text })).status).toBe(200);
      const reply = await waitFor(() => ephemerals(user)[before], 30_000, `answer to /hermes ${text}`);
      expect(validateBlocks(reply.blocks ?? [], { maxBlocks: 50 })).toEqual([]);
      for (const b of (reply.blocks ?? []) as Array<{ type: string; text?: { text: string } }>)
        if (b.type === "section") expect(b.text!.text.length).toBeLessThanOrEqual(3000);
      return reply;
    }
    const shown = (m: SandboxMessage) => blocksText(m.blocks);

    it("the requester and admins see a run's timeline; anyone else is refused (and audited) as for no such run", async () => {
      const [mine] = await t.hermes.services.storage.runQuery.list({
        userId: "U0USER1",
        status: "completed",
        limit: 1,
      });
      const id = mine!.runId;
      const own = shown(await slash("U0USER1", `run ${id}`));
      expect(own).toContain(`Run ${id}`);
      expect(own).toContain("answered");
      expect(own).toContain(":brain: *model scripted* — ok");
      const admin = shown(await slash("U0ADMIN", `run \`${id}\``));
      expect(admin).toContain(`Run ${id}`);
      // Anyone else is told exactly what they are told for a run that does not exist.
      const other = shown(await slash("U0WANGLEI", `run ${id}`));
      expect(other).toBe(runNotFound(id));
      expect(shown(await slash("U0WANGLEI", "run run_nosuch"))).toBe(runNotFound("run_nosuch"));
      expect(other).not.toContain("scripted");
      const refused = (await t.hermes.services.storage.audit.query({ user: "U0WANGLEI", limit: 5 })).rows;
      expect(refused.some((r) => r.action === "tool.denied" && r.tool === "/hermes")).toBe(true);
      expect(shown(await slash("U0USER1", "run no-such-run"))).toContain("I found no run `no-such-run`");
      expect(shown(await slash("U0USER1", "run"))).toContain("Which run?");
    });

    it("members list their own runs (feedback counts, filters); admins anyone's; others' runs are refused", async () => {
      const failed = await t.hermes.services.storage.runQuery.list({
        userId: "U0USER1",
        status: "failed",
        limit: 1,
      });
      await t.hermes.services.storage.db.db.execute(
        sql`INSERT INTO run_feedback (run_id, user_id, value) VALUES (${failed[0]!.runId}, 'U0ADMIN', 'down'), (${failed[0]!.runId}, 'U0WANGLEI', 'down')`,
      );
      const list = shown(await slash("U0USER1", "runs status:failed since:1h"));
      expect(list).toContain(failed[0]!.runId);
      expect(list).toContain("👍 0 👎 2");
      expect(list).not.toContain("*answered*");
      expect(shown(await slash("U0WANGLEI", "runs"))).toContain("No runs match");
      expect(shown(await slash("U0WANGLEI", "runs user:<@U0USER1>"))).toContain(
        "Only admins can list other people's runs",
      );
      const all = shown(await slash("U0ADMIN", "runs user:<@U0USER1> status:answered"));
      expect(all).toContain("*answered*");
      expect(all).not.toContain("*failed*");
      // A name works as it does for /hermes audit: looked up in the workspace.
      const byName = shown(await slash("U0ADMIN", 'runs user:"Li Ming" status:answered'));
      expect(byName).toBe(all);
      expect(shown(await slash("U0ADMIN", "runs user:@li.mnig"))).toContain("li.ming");
      expect(shown(await slash("U0ADMIN", "runs status:weird"))).toContain(
        "is not a run status; use one of answered",
      );
    });
  });
});
