import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { agentSessionsOf } from "../../src/sandbox/agent-sessions.ts";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { execSql } from "../helpers/pg.ts";
import { answer, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";
import { botReplies, cardsIn, messageText } from "../helpers/slack-thread.ts";

const USER = "U0USER1";
const DM = "D0USER1";

/**
 * The user's Stop on an agent session (`agent_session_stopped`) stops its run as `cancel` does: a
 * tool call at work is aborted and no further model call or tool call starts; a run waiting for
 * approval has its calls rejected (audited, card updated); the session is closed. The real Bolt app
 * over HTTP, the Slack emulator, Postgres, the scripted model and an HTTP tool that waits.
 */
describe("Stop on an agent session", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  let tool: Server;
  let dir = "";
  const started: string[] = [];
  const aborted: string[] = [];

  beforeAll(async () => {
    // `wait_for_build` answers only when its caller gives up; `restart_service` is never reached.
    tool = createServer((req, res) => {
      started.push(req.url ?? "");
      res.on("close", () => {
        if (!res.writableEnded) aborted.push(req.url ?? "");
      });
      if (req.url?.startsWith("/restart")) res.end('{"ok":true}');
    });
    await new Promise<void>((r) => tool.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(tool.address() as AddressInfo).port}`;
    dir = mkdtempSync(join(tmpdir(), "hermes-agent-stop-"));
    const tools = join(dir, "tools.yml");
    writeFileSync(
      tools,
      [
        "- name: wait_for_build",
        "  description: Waits until the build finishes.",
        "  method: GET",
        `  url: ${base}/wait`,
        "  timeoutMs: 120000",
        "- name: restart_service",
        "  description: Restarts the service.",
        "  method: POST",
        `  url: ${base}/restart`,
        "  approval: always",
      ].join("\n"),
    );
    await model.start();
    t = await startTestHermes({ model, env: { HERMES_HTTP_TOOLS: tools, HERMES_STREAMING: "auto" } });
  }, 180_000);
  afterAll(async () => {
    await t?.stop();
    await model.stop();
    await new Promise<void>((r) => tool?.close(() => r()));
    tool?.closeAllConnections();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => model.reset());

  const sessions = () => agentSessionsOf(t.ws);
  const audit = (threadTs: string) =>
    execSql<{ action: string; tool: string }>(
      t.hermes.services.storage.db.db,
      `select a.action, a.tool from audit_log a join runs r on r.id = a.run_id
        where r.session_key like '%:${threadTs}' order by a.id`,
    );
  const runStatus = async (threadTs: string) =>
    (
      await execSql<{ status: string }>(
        t.hermes.services.storage.db.db,
        `select status from runs where session_key like '%:${threadTs}'`,
      )
    )[0]?.status;

  it("aborts the tool call at work: nothing after it starts, the answer says so, the session is closed", async () => {
    model.enqueue(toolCalls([{ name: "wait_for_build", id: "call_wait" }]));
    // Never reached: the run stops before its next step.
    model.enqueue(toolCalls([{ name: "restart_service", id: "call_restart" }]));
    const d = await t.sender.agentMessage({
      user: USER,
      text: "wait for the build, then restart",
      viewing: { channel: "C0OPS" },
    });
    const ts = d.message!.ts;
    await waitFor(() => started.includes("/wait"), 30_000, "the tool call to start");
    await waitFor(() => sessions().get(DM, ts)?.status === "processing", 10_000, "the session processing");
    expect(sessions().get(DM, ts)?.title).toBe("wait for the build, then restart");

    await t.sender.agentSessionStopped({ user: USER, channel: DM, threadTs: ts });

    await waitFor(() => aborted.includes("/wait"), 30_000, "the tool call aborted");
    await waitFor(async () => (await runStatus(ts)) === "stopped", 30_000, "the run stopped");
    const replies = await waitFor(
      () => botReplies(t, DM, ts).find((m) => /cancel/i.test(messageText(m))),
      30_000,
      "the answer",
    );
    expect(messageText(replies)).toMatch(/cancelled before it finished/);
    // Every message streamed in the thread was closed.
    const streams = t.emulator
      .callsTo("chat.startStream")
      .filter((c) => c.args.thread_ts === ts)
      .map((c) => String(c.response?.ts));
    await waitFor(
      () => streams.every((s) => t.ws.getMessage(DM, s)?.stream?.state !== "streaming"),
      10_000,
      "the streams closed",
    );
    await waitFor(() => sessions().get(DM, ts)?.status === "closed", 10_000, "the session closed");
    expect(model.requests).toHaveLength(1);
    expect(started.filter((u) => u.startsWith("/restart"))).toEqual([]);
    const rows = await audit(ts);
    expect(rows.map((r) => `${r.action}:${r.tool}`)).toContain("tool.requested:wait_for_build");
    expect(rows.some((r) => r.tool === "wait_for_build" && r.action === "tool.failed")).toBe(true);
    expect(rows.some((r) => r.tool === "restart_service")).toBe(false);
    // The prompt had what the user viewed, fenced as untrusted data.
    expect(JSON.stringify(model.requests[0]!.body.messages)).toContain(
      '<untrusted source=\\"slack-app-context\\">',
    );
  });

  it("aborts the model call in flight: the run stops at once, not when the model answers", async () => {
    model.enqueue({
      ...(answer("Too late.") as { completion: Record<string, unknown> }),
      delayMs: 60_000,
    });
    const d = await t.sender.agentMessage({ user: USER, text: "think hard" });
    const ts = d.message!.ts;
    await waitFor(() => model.requests.length === 1, 30_000, "the model call");
    await t.sender.agentSessionStopped({ user: USER, channel: DM, threadTs: ts });
    await waitFor(async () => (await runStatus(ts)) === "stopped", 30_000, "the run stopped");
    await waitFor(() => sessions().get(DM, ts)?.status === "closed", 10_000, "the session closed");
    expect(botReplies(t, DM, ts).some((m) => m.text === "Too late.")).toBe(false);
  });

  it("rejects the approvals a run waits for (audited, card updated) and closes the session", async () => {
    model.enqueue(toolCalls([{ name: "restart_service", id: "call_restart" }]));
    model.enqueue(answer("Understood, I did not restart it."));
    const d = await t.sender.agentMessage({ user: USER, text: "restart the service" });
    const ts = d.message!.ts;
    const card = await waitFor(() => cardsIn(t, DM, ts)[0], 30_000, "the approval card");
    await waitFor(() => sessions().get(DM, ts)?.status === "suspended", 10_000, "the session suspended");

    await t.sender.agentSessionStopped({ user: USER, channel: DM, threadTs: ts });

    await waitFor(
      async () => (await audit(ts)).some((r) => r.action === "tool.rejected" && r.tool === "restart_service"),
      30_000,
      "the rejection audited",
    );
    await waitFor(
      () => botReplies(t, DM, ts).find((m) => /Cancelled: I rejected 1 pending call/.test(messageText(m))),
      30_000,
      "the cancel notice",
    );
    await waitFor(
      async () => (await runStatus(ts)) !== "paused" && (await runStatus(ts)) !== "running",
      30_000,
      "the run ended",
    );
    await waitFor(() => sessions().get(DM, ts)?.status === "closed", 10_000, "the session closed");
    expect(started.filter((u) => u.startsWith("/restart"))).toEqual([]);
    // The resumed run stops at once (no model call after the rejection); its session ends closed.
    await waitFor(
      () => botReplies(t, DM, ts).find((m) => /cancelled before it finished/.test(messageText(m))),
      30_000,
      "the resumed run's answer",
    );
    await waitFor(
      () =>
        t.emulator
          .callsTo("agents.sessions.setStatus")
          .filter((c) => c.args.thread_ts === ts)
          .at(-1)?.args.status === "closed",
      10_000,
      "the last status closed",
    );
    expect(model.requests).toHaveLength(1);
    // The card lost its buttons and says the call was rejected.
    expect(cardsIn(t, DM, ts)).toEqual([]);
    expect(messageText(t.ws.getMessage(DM, card.ts)!)).toMatch(/reject/i);
  });
});
