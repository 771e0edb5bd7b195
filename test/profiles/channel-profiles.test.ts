import type pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_SYSTEM_PROMPT } from "../../src/agent/context/system-prompt.ts";
import { blocksText } from "../helpers/bolt-app.ts";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { testPool } from "../helpers/pg.ts";
import { answer, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";
import { botReplies, commandReply, messageText } from "../helpers/slack-thread.ts";

/** The fields a profile changed in these tests leaves unset, as the audit log writes them. */
const UNSET = { model: null, fallback_model: null, tokens_per_day: null, streaming: null };

/**
 * Channel profiles kept in Postgres, end to end: `/hermes profile` through the real receiver, runs
 * through the worker and the scripted model, the audit log in Postgres.
 */
describe("channel profiles through Slack", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  let db: pg.Pool;
  const sq = <T extends pg.QueryResultRow>(text: string, values: unknown[] = []) =>
    db.query<T>(text, values).then((r) => r.rows);

  /** `/hermes <text>` as `user` in `channel`; resolves with the text of the ephemeral answer. */
  const hermes = (user: string, text: string, channel = "C0OPS") => commandReply(t, user, text, channel);

  /** Mentions Hermes in `channel` and waits for the answer `expected` in the thread. */
  async function ask(channel: string, text: string, expected: string): Promise<void> {
    const d = await t.sender.appMention({ user: "U0USER1", channel, text: `<@U0HERMES> ${text}` });
    const ts = d.message!.ts;
    await waitFor(
      () => botReplies(t, channel, ts).find((m) => messageText(m).includes(expected)),
      30_000,
      expected,
    );
  }

  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({ model });
    db = testPool({ connectionString: t.db.url, max: 2 });
  }, 180_000);
  afterAll(async () => {
    await db?.end();
    await t?.stop();
    await model.stop();
  });
  beforeEach(() => model.reset());

  it("/hermes profile: any member sees it; only admins change it (the refusal is audited)", async () => {
    expect(await hermes("U0USER1", "profile")).toContain(
      "*Profile of <#C0OPS>*: no profile: Hermes's defaults",
    );
    expect(await hermes("U0USER1", "profile set tools get_current_time")).toContain(
      "Only admins can change channel profiles.",
    );
    expect(
      await sq("SELECT user_id, args FROM audit_log WHERE action = 'tool.denied' AND tool = '/hermes'"),
    ).toEqual([{ user_id: "U0USER1", args: { subcommand: "profile" } }]);
    expect(await sq("SELECT * FROM channel_profiles")).toEqual([]);
  });

  it("an admin's change is audited as profile.changed with the profile before and after", async () => {
    expect(await hermes("U0ADMIN", "profile set tools get_current_time")).toContain(
      "<#C0OPS>'s profile is now:\n• Tools: `get_current_time`",
    );
    expect(await hermes("U0ADMIN", "profile set instructions Answer as the ops desk.")).toContain(
      "> Answer as the ops desk.",
    );
    expect(await hermes("U0ADMIN", "profile set tools get_time")).toContain("No tool is named `get_time`");
    expect(await hermes("U0ADMIN", "profile set level admin")).toContain("is not a level a channel can give");
    expect(await hermes("U0USER1", "profile")).toContain(
      "*Profile of <#C0OPS>*: its own profile\n• Tools: `get_current_time`",
    );
    const changes = await sq<{ user_id: string; channel_id: string; args: unknown }>(
      "SELECT user_id, channel_id, args FROM audit_log WHERE action = 'profile.changed' ORDER BY id",
    );
    expect(changes).toEqual([
      {
        user_id: "U0ADMIN",
        channel_id: "C0OPS",
        args: {
          channel: "C0OPS",
          before: null,
          after: { instructions: null, tools: ["get_current_time"], level: null, ...UNSET },
        },
      },
      {
        user_id: "U0ADMIN",
        channel_id: "C0OPS",
        args: {
          channel: "C0OPS",
          before: { instructions: null, tools: ["get_current_time"], level: null, ...UNSET },
          after: {
            instructions: "Answer as the ops desk.",
            tools: ["get_current_time"],
            level: null,
            ...UNSET,
          },
        },
      },
    ]);
  });

  it("a tool outside the channel's allow-list is never offered, and refused and audited when called", async () => {
    model.enqueue(
      toolCalls([{ name: "create_ticket", args: { title: "VPN down" } }]),
      answer("Not allowed here."),
    );
    await ask("C0OPS", "open a ticket: VPN down", "Not allowed here.");
    const offered = model.requests.map((r) => (r.body.tools ?? []).map((x) => x.function.name));
    expect(offered).toEqual([["get_current_time"], ["get_current_time"]]);
    expect(model.requests[0]!.body.messages[0]!.content).toContain("Answer as the ops desk.");
    const denied = await sq<{ error: string | null }>(
      "SELECT error FROM audit_log WHERE action = 'tool.denied' AND tool = 'create_ticket' AND channel_id = 'C0OPS'",
    );
    expect(denied).toEqual([
      { error: "create_ticket is not allowed in this channel: its profile allows only get_current_time" },
    ]);
    expect(
      await sq("SELECT action FROM audit_log WHERE action = 'tool.executed' AND tool = 'create_ticket'"),
    ).toEqual([]);
    expect(await sq("SELECT count(*)::int AS n FROM tickets WHERE title = 'VPN down'")).toEqual([{ n: 0 }]);
  });

  it("the default profile applies in a channel without its own; clearing a channel's falls back to it", async () => {
    expect(
      await hermes("U0ADMIN", "profile set default instructions Always sign as Hermes Default."),
    ).toContain("The default profile is now:");
    model.enqueue(answer("Hello from general."));
    await ask("C0GENERAL", "hello", "Hello from general.");
    const request = model.requests[0]!.body;
    expect(request.messages[0]!.content).toContain("Always sign as Hermes Default.");
    expect(request.messages[0]!.content).toContain(DEFAULT_SYSTEM_PROMPT);
    expect((request.tools ?? []).map((x) => x.function.name)).toContain("create_ticket");
    expect(await hermes("U0USER1", "profile", "C0GENERAL")).toContain(
      "*Profile of <#C0GENERAL>*: the default profile (it has none of its own)",
    );

    expect(await hermes("U0ADMIN", "profile clear")).toContain(
      "<#C0OPS>'s profile is removed: the channel now gets the default profile.",
    );
    const cleared = await sq<{ args: { before: unknown; after: unknown } }>(
      "SELECT args FROM audit_log WHERE action = 'profile.changed' ORDER BY id DESC LIMIT 1",
    );
    expect(cleared[0]!.args.after).toBeNull();
    expect(cleared[0]!.args.before).toEqual({
      instructions: "Answer as the ops desk.",
      tools: ["get_current_time"],
      level: null,
      ...UNSET,
    });
    model.reset();
    model.enqueue(answer("Ops again."));
    await ask("C0OPS", "hello", "Ops again.");
    expect(model.requests[0]!.body.messages[0]!.content).toContain("Always sign as Hermes Default.");
  });

  it("a delegated sub-agent keeps the channel's allow-list", async () => {
    // A channel named as people type it, looked up in the workspace; a misspelt one gets a close match.
    expect(await hermes("U0ADMIN", "profile set #generl tools get_current_time")).toContain(
      "Did you mean #general?",
    );
    expect(await hermes("U0ADMIN", "profile set #general tools get_current_time,delegate")).toContain(
      "<#C0GENERAL>'s profile is now:",
    );
    model.enqueue(
      toolCalls([{ name: "delegate", args: { task: "find VPN tickets" } }]),
      answer("Sub-agent done."),
      answer("Delegated."),
    );
    await ask("C0GENERAL", "look into the VPN tickets", "Delegated.");
    const offered = model.requests.map((r) => (r.body.tools ?? []).map((x) => x.function.name).sort());
    expect(offered[0]).toEqual(["delegate", "get_current_time"]);
    // The sub-agent's request: only what the channel allows (never create_ticket, search_tickets…).
    expect(offered[1]!.every((name) => ["delegate", "get_current_time"].includes(name))).toBe(true);
    expect(offered[1]).toContain("get_current_time");

    // Admins see every profile in App Home, the default first.
    expect((await t.sender.appHomeOpened({ user: "U0ADMIN" })).status).toBe(200);
    const view = await waitFor(() => t.ws.getView("U0ADMIN"), 30_000, "App Home");
    const home = blocksText((view as { blocks: unknown[] }).blocks);
    expect(home).toContain(
      "• Default: any tools, adds instructions\n• <#C0GENERAL>: tools get_current_time, delegate",
    );
    expect(home).toContain("Change them with `/hermes profile set …`");
  });
});
