import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxMessage } from "../../src/sandbox/workspace-types.ts";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { execSql } from "../helpers/pg.ts";

type Block = { type: string; elements?: Array<{ action_id?: string; value?: string }> };

const botReplies = (t: TestHermes, channel: string, ts: string) =>
  (t.thread(channel, ts) ?? []).filter((m) => m.user === "U0HERMES" && m.ts !== ts);
const cardOf = (t: TestHermes, channel: string, ts: string) =>
  botReplies(t, channel, ts).find((m) => ((m.blocks ?? []) as Block[]).some((b) => b.type === "actions"));
const approvalIdOf = (card: SandboxMessage) =>
  (card.blocks as Block[]).find((b) => b.type === "actions")!.elements![0]!.value ?? "";

/**
 * Command mode (no model) over real HTTP: `run send_message to=#general …` as a new user types it.
 * Names resolve to ids before policy (the membership guard and the audit log see the channel id),
 * and every refusal reaches the person as one plain sentence.
 */
describe("channel and person names in command mode, end to end through Bolt", () => {
  let t: TestHermes;
  beforeAll(async () => {
    t = await startTestHermes();
    // A public channel Li Ming is not in: listed by conversations.list, refused by the membership guard.
    t.ws.addChannel({ id: "C0LEADS", name: "leads", members: ["U0HERMES", "U0ADMIN"] });
  }, 180_000);
  afterAll(() => t?.stop());

  async function ask(text: string): Promise<string> {
    const d = await t.sender.appMention({ user: "U0USER1", channel: "C0OPS", text: `<@U0HERMES> ${text}` });
    expect(d.status).toBe(200);
    return d.message!.ts;
  }

  const reply = (ts: string, what: string, match: (text: string) => boolean) =>
    waitFor(() => botReplies(t, "C0OPS", ts).find((m) => match(m.text)), 30_000, what);

  const auditOf = async (callId: string | undefined) =>
    (await t.hermes.services.storage.audit.query({ limit: 50 })).rows.filter(
      (r) => r.tool === "send_message" && (callId === undefined || r.toolCallId === callId),
    );

  it("run send_message to=#general posts to #general after approval; the audit rows hold the channel id", async () => {
    const ts = await ask("run send_message to=#general text=hi");
    const card = await waitFor(() => cardOf(t, "C0OPS", ts), 30_000, "approval card");
    expect(card.text + JSON.stringify(card.blocks)).toContain("C0GENERAL");
    expect(t.ws.history("C0GENERAL").some((m) => m.text.startsWith("hi\n"))).toBe(false);

    const click = await t.sender.blockAction({
      user: "U0USER1",
      actionId: "hermes.approve",
      value: approvalIdOf(card),
      channel: "C0OPS",
      messageTs: card.ts,
    });
    expect(click.status).toBe(200);
    const posted = await waitFor(
      () => t.ws.history("C0GENERAL").find((m) => m.text.startsWith("hi\n")),
      30_000,
      "the post in #general",
    );
    expect(posted.text).toContain("sent by Hermes on behalf of <@U0USER1>");
    await reply(
      ts,
      "the result",
      // The result in words, the channel as a reference Slack shows by name.
      (text) => text.startsWith("`send_message` returned:\nSent: yes\nTo: <#C0GENERAL>"),
    );

    const rows = await waitFor(
      async () => {
        const all = await auditOf(undefined);
        return all.some((r) => r.action === "tool.executed") ? all : undefined;
      },
      30_000,
      "the executed row",
    );
    const callId = rows.find((r) => r.action === "tool.executed")!.toolCallId;
    const own = rows.filter((r) => r.toolCallId === callId);
    expect(own.map((r) => r.action).sort()).toEqual(
      ["tool.approval_requested", "tool.approved", "tool.executed", "tool.requested"].sort(),
    );
    for (const row of own.filter((r) => r.args)) expect((row.args as { to?: string }).to).toBe("C0GENERAL");
  });

  it("an unknown channel gets the suggestion sentence, audited as a failed request", async () => {
    const ts = await ask("run send_message to=#genral text=hi");
    const answer = await reply(ts, "the refusal", (text) => text.includes("#genral"));
    expect(answer.text).toBe("`send_message` was not run: No channel named #genral. Did you mean #general?");
    expect(cardOf(t, "C0OPS", ts)).toBeUndefined();
    const failed = (await auditOf(undefined)).find(
      (r) => r.action === "tool.failed" && String(r.error).includes("#genral"),
    );
    expect(failed?.error).toBe("No channel named #genral. Did you mean #general?");
  });

  it("the membership guard judges the resolved channel; a person named in words resolves to their id", async () => {
    const leads = await ask("run send_message to=#leads text=hi");
    const denied = await reply(leads, "the denial", (text) => text.includes("was not run"));
    expect(denied.text).toBe(
      "`send_message` was not run: <@U0USER1> is not a member of <#C0LEADS>. Join that channel first, or send it to a channel you are in.",
    );

    const dm = await ask('run send_message to="Wang Lei" text=hello');
    const card = await waitFor(() => cardOf(t, "C0OPS", dm), 30_000, "approval card for Wang Lei");
    expect(JSON.stringify(card.blocks)).toContain("U0WANGLEI");
  });

  /** Approves the card in thread `ts` as Li Ming. */
  async function approve(ts: string) {
    const card = await waitFor(() => cardOf(t, "C0OPS", ts), 30_000, "approval card");
    const click = await t.sender.blockAction({
      user: "U0USER1",
      actionId: "hermes.approve",
      value: approvalIdOf(card),
      channel: "C0OPS",
      messageTs: card.ts,
    });
    expect(click.status).toBe(200);
    return card;
  }

  /** The audit rows of the one call of `tool` whose stored args satisfy `match`, once it ran. */
  const rowsOfCall = (tool: string, match: (args: Record<string, unknown>) => boolean) =>
    waitFor(
      async () => {
        const rows = (await t.hermes.services.storage.audit.query({ tool, limit: 100 })).rows;
        const executed = rows.find(
          (r) => r.action === "tool.executed" && match((r.args ?? {}) as Record<string, unknown>),
        );
        return executed ? rows.filter((r) => r.toolCallId === executed.toolCallId) : undefined;
      },
      30_000,
      `the executed ${tool} row`,
    );

  it("an unquoted message of several words is sent whole, not cut after its first word", async () => {
    const ts = await ask("run send_message to=#general text=hello everyone, standup moved to 10:30");
    const card = await approve(ts);
    expect(JSON.stringify(card.blocks)).toContain("hello everyone, standup moved to 10:30");
    const posted = await waitFor(
      () => t.ws.history("C0GENERAL").find((m) => m.text.startsWith("hello everyone")),
      30_000,
      "the post in #general",
    );
    expect(posted.text).toBe(
      "hello everyone, standup moved to 10:30\n_— sent by Hermes on behalf of <@U0USER1>_",
    );
  });

  it("arguments it cannot read are refused with a sentence; nothing is asked, run or audited", async () => {
    const ts = await ask("run send_message to=#general text=please mode=loud");
    const answer = await reply(ts, "the refusal", (text) => text.startsWith("I did not run"));
    expect(answer.text).toBe(
      'I did not run `send_message`: `send_message` has no argument `mode`: its arguments are `to`, `text`, `in_channel`. If `mode=` is part of the value of `text`, put that value in quotes: `text="…"`.\nTry: `run send_message to=#general text=hello`',
    );
    const unclosed = await ask('run send_message to=#general text="hello everyone');
    const second = await reply(unclosed, "the refusal", (text) => text.startsWith("I did not run"));
    expect(second.text).toContain("The quote that starts the value of `text=` is never closed");
    expect(cardOf(t, "C0OPS", ts)).toBeUndefined();
    expect(cardOf(t, "C0OPS", unclosed)).toBeUndefined();
    // Not a single audit row for either thread: no call was made.
    const rows = (await t.hermes.services.storage.audit.query({ limit: 200 })).rows;
    expect(rows.filter((r) => r.threadTs === ts || r.threadTs === unclosed)).toEqual([]);
    expect(t.ws.history("C0GENERAL").some((m) => m.text.startsWith("please"))).toBe(false);
  });

  it("what the sandbox composer sends (<#C…|name>, <@U…>, a quoted text) lands by id; the audit rows hold ids", async () => {
    // The composer turns `#general` and `@Li Ming` into Slack's encoded references, as Slack does.
    const ts = await ask('run send_message to=<#C0GENERAL|general> text="Quarterly review: slides are up"');
    const card = await approve(ts);
    expect(JSON.stringify(card.blocks)).toContain("C0GENERAL");
    const posted = await waitFor(
      () => t.ws.history("C0GENERAL").find((m) => m.text.startsWith("Quarterly review")),
      30_000,
      "the post in #general",
    );
    expect(posted.text).toContain("sent by Hermes on behalf of <@U0USER1>");
    const sent = await rowsOfCall("send_message", (a) => String(a.text).startsWith("Quarterly review"));
    expect(sent.map((r) => r.action).sort()).toEqual(
      ["tool.approval_requested", "tool.approved", "tool.executed", "tool.requested"].sort(),
    );
    expect(sent.every((r) => r.threadTs === ts)).toBe(true); // rows of a thread carry its ts
    for (const row of sent.filter((r) => r.args)) {
      expect(row.args).toMatchObject({ to: "C0GENERAL", text: "Quarterly review: slides are up" });
    }

    const ticket = await ask(
      "run create_ticket title=Badge reader at the 2F door is dead assignee=<@U0USER1>",
    );
    const done = await reply(ticket, "the ticket", (text) => text.startsWith("Opened ticket #"));
    expect(done.text).toMatch(
      /^Opened ticket #\d+ 'Badge reader at the 2F door is dead' \(medium\), assigned to <@U0USER1>\.$/,
    );
    const opened = await rowsOfCall("create_ticket", (a) => String(a.title).startsWith("Badge reader"));
    expect(opened.map((r) => r.action).sort()).toEqual(["tool.executed", "tool.requested"]);
    for (const row of opened.filter((r) => r.args)) {
      expect(row.args).toMatchObject({ title: "Badge reader at the 2F door is dead", assignee: "U0USER1" });
    }
    const stored = await execSql<{ assignee: string | null; title: string }>(
      t.hermes.services.storage.db.db,
      "select assignee, title from tickets where title like 'Badge reader%'",
    );
    expect(stored).toEqual([{ assignee: "U0USER1", title: "Badge reader at the 2F door is dead" }]);
  });

  it("a missing argument is a plain sentence with a command that works, not the model's instructions", async () => {
    const ts = await ask("run send_message to=#general");
    const answer = await reply(ts, "the sentence", (text) => text.includes("needs"));
    expect(answer.text).toBe(
      "`send_message` needs a `text`.\nTry: `run send_message to=#general text=hello`",
    );
    expect(answer.text).not.toMatch(/call send_message again|Fix these fields/);
  });
});
