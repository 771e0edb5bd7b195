import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { WebClient } from "@slack/web-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { compareTs } from "../../src/sandbox/message-ts.ts";
import { loadPersistedWorkspace } from "../../src/sandbox/persisted-workspace.ts";
import { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import { PROCESS_TEST_TIMEOUT_MS } from "../helpers/child-process.ts";
import { waitFor } from "../helpers/hermes-harness.ts";
import { type HermesProcess, startHermesProcess, tempDir } from "../helpers/hermes-process.ts";
import { answer, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";

interface PageMessage {
  ts: string;
  channel: string;
  text: string;
  user?: string;
  thread_ts?: string;
  blocks?: Array<{ type: string; elements?: Array<{ action_id?: string; value?: string }> }>;
}

// Bounds a hang only: a turn runs in the Hermes process, which competes with vitest for two cores.
const WAIT_MS = 90_000;

/**
 * `npm start`'s sandbox workspace lives in `$HERMES_DATA_DIR/sandbox` beside the database: a real
 * Hermes process (sandbox mode, embedded PGlite, the scripted model) is stopped with SIGTERM and
 * killed with kill -9, and each restart shows the same conversations, keeps handing out later ts, and
 * resumes a run whose approval card was posted before the kill. A damaged workspace file gives a
 * fresh demo workspace with one warning, not a crash.
 */
describe("the sandbox workspace survives restarts", () => {
  const model = new ScriptedModelServer();
  let dir: ReturnType<typeof tempDir>;
  let proc: HermesProcess | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    await model.start();
    dir = tempDir("sandbox-restart");
    env = {
      HERMES_DATA_DIR: dir.path,
      OPENAI_BASE_URL: model.baseURL,
      HERMES_MODEL: "scripted",
      OPENAI_API_KEY: "k",
      HERMES_MODEL_MAX_RETRIES: "0",
      HERMES_STREAMING: "off",
    };
  }, PROCESS_TEST_TIMEOUT_MS);
  afterAll(async () => {
    await proc?.kill9();
    await model.stop();
    dir?.remove();
  });

  const start = async () => {
    proc = await startHermesProcess(env);
    return proc;
  };
  const state = async (as = "U0USER1") => {
    const r = await fetch(`${proc!.origin}/sandbox/api/state?as=${as}`);
    if (!r.ok) throw new Error(`state: HTTP ${r.status}`);
    return ((await r.json()) as { state: { messages: PageMessage[] } }).state.messages;
  };
  const say = async (channel: string, text: string, as = "U0USER1") => {
    const r = await fetch(`${proc!.origin}/sandbox/api/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ as, channel, text }),
    });
    expect(r.status).toBe(200);
    return ((await r.json()) as { ts: string }).ts;
  };
  const botReply = (messages: PageMessage[], threadTs: string, text: string) =>
    messages.find((m) => m.thread_ts === threadTs && m.user === "U0HERMES" && m.text.includes(text));
  const approveButton = (m: PageMessage) =>
    m.blocks?.flatMap((b) => b.elements ?? []).find((e) => e.action_id === "hermes.approve");

  it(
    "SIGTERM: the thread and the answer are there after the restart, and new messages get later ts",
    async () => {
      await start();
      model.enqueue(answer("Hello Li Ming, the printer is on 3F."));
      const asked = await say("C0GENERAL", "<@U0HERMES> where is the printer?");
      const reply = await waitFor(
        async () => botReply(await state(), asked, "printer is on 3F"),
        WAIT_MS,
        "the answer",
      );
      expect(existsSync(join(dir.path, "sandbox", "workspace.json"))).toBe(true);
      await proc!.stop();

      await start();
      const after = await state();
      expect(after.find((m) => m.ts === asked)?.text).toContain("where is the printer?");
      expect(botReply(after, asked, "printer is on 3F")?.ts).toBe(reply.ts);
      const newest = after
        .map((m) => m.ts)
        .sort(compareTs)
        .at(-1)!;

      model.enqueue(answer("You are welcome."));
      const next = await say("C0GENERAL", "<@U0HERMES> thanks");
      expect(compareTs(next, newest)).toBe(1);
      const nextReply = await waitFor(
        async () => botReply(await state(), next, "welcome"),
        WAIT_MS,
        "the answer after the restart",
      );
      expect(compareTs(nextReply.ts, next)).toBe(1);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "kill -9: an approval card posted before the kill still works after it, and the run resumes",
    async () => {
      model.enqueue(
        toolCalls([{ name: "send_message", args: { to: "<@U0WANGLEI>", text: "Li Ming joins at three" } }]),
      );
      const asked = await say("C0OPS", "<@U0HERMES> tell Wang Lei I'll join at three");
      const card = await waitFor(
        async () => (await state()).find((m) => m.thread_ts === asked && approveButton(m)),
        WAIT_MS,
        "the approval card",
      );
      await proc!.kill9();

      await start();
      const kept = (await state()).find((m) => m.ts === card.ts);
      expect(kept && approveButton(kept)?.value).toBe(approveButton(card)?.value);
      model.enqueue(answer("Done: Wang Lei knows you join at three."));
      const click = await fetch(`${proc!.origin}/sandbox/api/actions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          as: "U0USER1",
          channel: "C0OPS",
          messageTs: card.ts,
          actionId: "hermes.approve",
          value: approveButton(card)?.value,
        }),
      });
      expect(click.status).toBe(200);
      await waitFor(async () => botReply(await state(), asked, "Wang Lei knows"), WAIT_MS, "the resumed run");
      const dm = await state("U0WANGLEI");
      expect(dm.some((m) => m.channel === "D0WANGLEI" && m.text.includes("Li Ming joins at three"))).toBe(
        true,
      );
      const updated = (await state()).find((m) => m.ts === card.ts)!;
      expect(approveButton(updated)).toBeUndefined();
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "what the process kept reads back through the emulator's conversations.history and .replies",
    async () => {
      await proc!.kill9();
      const kept = loadPersistedWorkspace({ dir: join(dir.path, "sandbox"), logger: silentLogger() });
      const emulator = await new SlackApiEmulator({ workspace: kept.workspace }).start();
      try {
        const client = new WebClient("xoxb-test", { slackApiUrl: emulator.url, retryConfig: { retries: 0 } });
        const history = await client.conversations.history({ channel: "C0GENERAL" });
        const asked = history.messages?.find((m) => m.text?.includes("where is the printer?"));
        expect(asked?.reply_count).toBe(1);
        const thread = await client.conversations.replies({ channel: "C0GENERAL", ts: asked!.ts! });
        expect(thread.messages?.map((m) => m.text)).toEqual([
          asked!.text,
          "Hello Li Ming, the printer is on 3F.",
        ]);
        const ops = await client.conversations.history({ channel: "C0OPS" });
        const request = ops.messages?.find((m) => m.text?.includes("join at three"));
        const opsThread = await client.conversations.replies({ channel: "C0OPS", ts: request!.ts! });
        expect(opsThread.messages?.some((m) => m.text?.includes("Wang Lei knows"))).toBe(true);
      } finally {
        await emulator.stop();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "a damaged workspace file: a fresh demo workspace and one warning, not a crash",
    async () => {
      writeFileSync(join(dir.path, "sandbox", "workspace.json"), '{"format": "hermes-sandbox-wor');
      await start();
      const warnings = proc!.output().match(/could not be read/g) ?? [];
      expect(warnings).toHaveLength(1);
      expect(proc!.output()).toContain("starting a fresh demo workspace");
      expect(await state()).toEqual([]);
      expect(existsSync(join(dir.path, "sandbox.unreadable", "workspace.json"))).toBe(true);

      // The fresh workspace works and is kept in its turn.
      model.enqueue(answer("Fresh start."));
      const asked = await say("D0USER1", "hello again");
      await waitFor(
        async () => (await state()).find((m) => m.user === "U0HERMES" && m.text.includes("Fresh start")),
        WAIT_MS,
        "an answer",
      );
      await proc!.kill9();
      await start();
      expect((await state()).some((m) => m.ts === asked)).toBe(true);
      await proc!.stop();
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
