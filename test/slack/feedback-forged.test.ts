import { readdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evalCommand } from "../../src/eval/eval-command.ts";
import type { SandboxMessage } from "../../src/sandbox/workspace-types.ts";
import { FEEDBACK_ACTION_ID } from "../../src/slack/feedback-block.ts";
import { FEEDBACK_REFUSED } from "../../src/slack/feedback-listener.ts";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { execSql } from "../helpers/pg.ts";
import { answer, ScriptedModelServer } from "../helpers/scripted-model.ts";

type Block = { type: string; elements?: Array<{ positive_button?: { value: string } }> };

const runIdOf = (m: SandboxMessage) =>
  ((m.blocks ?? []) as Block[])
    .find((b) => b.type === "context_actions")
    ?.elements?.[0]?.positive_button?.value.slice("up:".length);

/**
 * A 👍/👎 click is trusted only on the run's own answer message, from someone who could see it. Forged
 * clicks (a value naming another run) store nothing, are audited as `feedback.ignored`, get one
 * ephemeral sentence, and never reach `eval --from-feedback`.
 */
describe("forged feedback clicks, through the real Bolt app", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  let drafts: string;
  const sql = <T extends Record<string, unknown>>(text: string) =>
    execSql<T>(t.hermes.services.storage.db.db, text);
  const botReplies = (channel: string, ts: string) =>
    (t.thread(channel, ts) ?? []).filter((m) => m.user === "U0HERMES" && m.ts !== ts);

  /** A request and its answer message (the one with the buttons) and run id. */
  async function asked(user: string, channel: string, words: string, dm = false) {
    model.enqueue(answer(`Answer: ${words}`));
    const d = dm
      ? await t.sender.messageIm({ user, text: words })
      : await t.sender.appMention({ user, channel, text: `<@U0HERMES> ${words}` });
    const at = d.message!.channel;
    const reply = await waitFor(
      () => botReplies(at, d.message!.ts).find((m) => runIdOf(m) !== undefined),
      30_000,
      `the answer to "${words}"`,
    );
    return { channel: at, question: d.message!, answer: reply, runId: runIdOf(reply)! };
  }

  const click = (user: string, channel: string, messageTs: string, value: string) =>
    t.sender.blockAction({ user, channel, messageTs, actionId: FEEDBACK_ACTION_ID, value });

  const ignored = () =>
    sql<{ actor_id: string; run_id: string | null; channel_id: string; reason: string; message_ts: string }>(
      `select actor_id, run_id, channel_id, args->>'reason' as reason, args->>'message_ts' as message_ts
         from audit_log where action = 'feedback.ignored' order by id`,
    );
  const stored = () => sql<{ run_id: string; user_id: string }>("select run_id, user_id from run_feedback");

  async function fromFeedback(): Promise<{ out: string; files: string[] }> {
    const out: string[] = [];
    const code = await evalCommand(["--from-feedback", "--drafts", drafts], {
      env: { DATABASE_URL: t.db.url, HERMES_ADMINS: "U0ADMIN" },
      out: (line) => out.push(line),
      err: (line) => out.push(line),
    });
    expect(code).toBe(0);
    return { out: out.join("\n"), files: readdirSync(drafts) };
  }

  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({ model });
    // A private channel Li Ming is not in.
    t.ws.addChannel({ id: "C0LEADS", name: "leads", isPrivate: true, members: ["U0HERMES", "U0ADMIN"] });
    drafts = await mkdtemp(join(tmpdir(), "hermes-forged-drafts-"));
  }, 180_000);
  afterAll(async () => {
    await t?.stop();
    await model.stop();
    if (drafts) await rm(drafts, { recursive: true, force: true });
  });

  it("refuses every forged click: nothing stored, each audited, the clicker told, eval sees none", async () => {
    const mine = await asked("U0USER1", "C0OPS", "when does the VPN restart?");
    const theirs = await asked("U0WANGLEI", "C0OPS", "who is on call?");
    const adminDm = await asked("U0ADMIN", "", "how many people are on leave?", true);
    const leads = await asked("U0ADMIN", "C0LEADS", "summarize the leads meeting");
    expect(adminDm.channel).toMatch(/^D/);

    const forged: Array<[string, string, string, string, string]> = [
      // Another thread's run id on Li Ming's own answer.
      [
        "another thread's run on my own answer",
        "C0OPS",
        mine.answer.ts,
        `down:${theirs.runId}`,
        "not_the_answer",
      ],
      // The admin's DM answer's run id, clicked by a member on their own answer.
      [
        "an admin's DM run on my own answer",
        "C0OPS",
        mine.answer.ts,
        `down:${adminDm.runId}`,
        "not_the_answer",
      ],
      // The admin's DM answer itself, clicked by a member (a DM is its requester's alone).
      [
        "the admin's DM answer itself",
        adminDm.channel,
        adminDm.answer.ts,
        `down:${adminDm.runId}`,
        "not_visible",
      ],
      // A message Hermes did not post: Li Ming's own question, naming their own run.
      ["my own question", "C0OPS", mine.question.ts, `down:${mine.runId}`, "not_the_answer"],
      // A private channel's real answer, clicked by someone not in it.
      ["a private channel's answer", "C0LEADS", leads.answer.ts, `down:${leads.runId}`, "not_visible"],
    ];
    const ephemeralsBefore = t.ws.ephemeralMessages("C0OPS", "U0USER1").length;
    for (const [what, channel, ts, value] of forged) {
      expect((await click("U0USER1", channel, ts, value)).status, what).toBe(200);
    }
    const rows = await waitFor(
      async () => {
        const r = await ignored();
        return r.length === forged.length ? r : undefined;
      },
      30_000,
      "one feedback.ignored row per forged click",
    );
    const key = (r: { channel_id: string; message_ts: string; run_id: string | null; reason: string }) =>
      `${r.channel_id} ${r.message_ts} ${r.run_id} ${r.reason}`;
    expect(rows.map(key).sort()).toEqual(
      forged
        .map(([, channel, ts, value, reason]) =>
          key({ channel_id: channel, message_ts: ts, run_id: value.slice("down:".length), reason }),
        )
        .sort(),
    );
    expect(rows.every((r) => r.actor_id === "U0USER1")).toBe(true);
    expect(await stored()).toEqual([]);

    // The clicker is told in one sentence, where they clicked; it names no run.
    const told = await waitFor(
      () => {
        const e = t.ws.ephemeralMessages("C0OPS", "U0USER1").slice(ephemeralsBefore);
        return e.length === 3 ? e : undefined;
      },
      30_000,
      "three ephemeral sentences in #ops",
    );
    expect(told.map((m) => m.text)).toEqual([FEEDBACK_REFUSED, FEEDBACK_REFUSED, FEEDBACK_REFUSED]);

    // eval --from-feedback sees none of them.
    const none = await fromFeedback();
    expect(none.files).toEqual([]);
    expect(none.out).toMatch(/^no 👎-rated runs since/);

    // The same person's real click on their own answer counts, and is the only draft.
    await click("U0USER1", "C0OPS", mine.answer.ts, `down:${mine.runId}`);
    await waitFor(async () => (await stored()).length === 1, 30_000, "the real rating");
    expect(await stored()).toEqual([{ run_id: mine.runId, user_id: "U0USER1" }]);
    expect((await fromFeedback()).files).toEqual([`${mine.runId}.yaml`]);
    // A member of #ops who did not ask may rate a channel answer they can see.
    await click("U0ADMIN", "C0OPS", theirs.answer.ts, `up:${theirs.runId}`);
    await waitFor(async () => (await stored()).length === 2, 30_000, "the admin's rating");
  });
});
