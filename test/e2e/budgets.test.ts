import type pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { utcDay } from "../../src/store/budget-store.ts";
import { blocksText } from "../helpers/bolt-app.ts";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { testPool } from "../helpers/pg.ts";
import { answer, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";
import { approvalIdOf, botReplies, cardsIn, messageText } from "../helpers/slack-thread.ts";

/**
 * Daily token budgets end to end: the real Bolt receiver and workers, Postgres, the Slack emulator
 * and the scripted model. HERMES_BUDGET_CHANNEL_TOKENS_PER_DAY is set but generous; users have none
 * unless an admin gives them one.
 */
describe("token budgets through Slack", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  let db: pg.Pool;
  const sq = <T extends pg.QueryResultRow>(text: string, values: unknown[] = []) =>
    db.query<T>(text, values).then((r) => r.rows);
  const usedToday = async (scope: string, id: string) =>
    Number(
      (
        await sq<{ used: string }>(
          "SELECT used FROM token_usage WHERE scope = $1 AND scope_id = $2 AND day = $3",
          [scope, id, utcDay(new Date())],
        )
      )[0]?.used ?? 0,
    );

  /** `/hermes <text>` as `user` in #ops; resolves with the text of the ephemeral answer. */
  async function hermes(user: string, text: string): Promise<string> {
    const before = t.ws.ephemeralMessages("C0OPS", user).length;
    const d = await t.sender.slashCommand({ user, channel: "C0OPS", text });
    expect(d.status).toBe(200);
    const m = await waitFor(() => t.ws.ephemeralMessages("C0OPS", user)[before], 30_000, `/hermes ${text}`);
    return `${m.text}\n${blocksText(m.blocks)}`;
  }

  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({ model, env: { HERMES_BUDGET_CHANNEL_TOKENS_PER_DAY: "5m" } });
    db = testPool({ connectionString: t.db.url, max: 2 });
  }, 180_000);
  afterAll(async () => {
    await db?.end();
    await t?.stop();
    await model.stop();
  });
  beforeEach(() => model.reset());

  it("/hermes budget: a member may look but not change; the refusal is audited", async () => {
    const shown = await hermes("U0USER1", "budget");
    expect(shown).toContain("• You (<@U0USER1>): no limit (the default)");
    expect(shown).toContain("• This channel (<#C0OPS>): 5,000,000 tokens a day (the default)");
    expect(await hermes("U0USER1", "budget <@U0WANGLEI|wanglei> 300k")).toContain(
      "Only admins can change token budgets.",
    );
    const denied = await sq<{ user_id: string; args: unknown }>(
      "SELECT user_id, args FROM audit_log WHERE action = 'tool.denied' AND tool = '/hermes'",
    );
    expect(denied).toEqual([{ user_id: "U0USER1", args: { subcommand: "budget" } }]);
    expect(await sq("SELECT 1 FROM users WHERE token_budget_per_day IS NOT NULL")).toEqual([]);
  });

  it("/hermes budget: an admin sets and clears limits, each change audited as budget.changed", async () => {
    expect(await hermes("U0ADMIN", "budget <@U0WANGLEI|wanglei> 10k")).toContain(
      "<@U0WANGLEI>'s daily token budget is now 10,000 tokens a day.",
    );
    expect(await hermes("U0ADMIN", "budget <#C0GENERAL|general> 1.5m")).toContain(
      "<#C0GENERAL>'s daily token budget is now 1,500,000 tokens a day.",
    );
    expect(await hermes("U0ADMIN", "budget <#C0GENERAL|general> default")).toContain(
      "<#C0GENERAL>'s daily token budget is back to the default: 5,000,000 tokens a day.",
    );
    expect(await hermes("U0ADMIN", "budget <@U0WANGLEI> lots")).toContain("`lots` is not a token count.");
    // An admin's view lists every limit an admin set; a member's does not.
    expect(await hermes("U0ADMIN", "budget")).toContain(
      "*Set by admins*\n• <@U0WANGLEI>: 10,000 tokens a day\n\n",
    );
    expect(await hermes("U0USER1", "budget")).not.toContain("Set by admins");
    const changes = await sq<{ user_id: string; actor_id: string; args: unknown }>(
      "SELECT user_id, actor_id, args FROM audit_log WHERE action = 'budget.changed' ORDER BY id",
    );
    expect(changes).toEqual([
      {
        user_id: "U0ADMIN",
        actor_id: "U0ADMIN",
        args: { scope: "user", id: "U0WANGLEI", tokens_per_day: 10_000 },
      },
      {
        user_id: "U0ADMIN",
        actor_id: "U0ADMIN",
        args: { scope: "channel", id: "C0GENERAL", tokens_per_day: 1_500_000 },
      },
      {
        user_id: "U0ADMIN",
        actor_id: "U0ADMIN",
        args: { scope: "channel", id: "C0GENERAL", tokens_per_day: null },
      },
    ]);
  });

  it("/hermes budget takes names as /hermes runs user: does; a misspelt one gets the same close-match sentence", async () => {
    const changes = () =>
      sq<{ args: unknown }>("SELECT args FROM audit_log WHERE action = 'budget.changed' ORDER BY id").then(
        (rows) => rows.map((r) => r.args),
      );
    const before = (await changes()).length;
    // A handle, a display name (spaces, quoted or not), a channel name: looked up in the workspace.
    expect(await hermes("U0ADMIN", "budget @li.ming 200k")).toContain(
      "<@U0USER1>'s daily token budget is now 200,000 tokens a day.",
    );
    expect(await hermes("U0ADMIN", "budget Li Ming 300k")).toContain(
      "<@U0USER1>'s daily token budget is now 300,000 tokens a day.",
    );
    expect(await hermes("U0ADMIN", 'budget "Li Ming" off')).toContain(
      "<@U0USER1>'s daily token budget is back to the default: no limit.",
    );
    expect(await hermes("U0ADMIN", "budget #general 2m")).toContain(
      "<#C0GENERAL>'s daily token budget is now 2,000,000 tokens a day.",
    );
    expect(await hermes("U0ADMIN", "budget #general default")).toContain(
      "<#C0GENERAL>'s daily token budget is back to the default: 5,000,000 tokens a day.",
    );
    expect((await changes()).slice(before)).toEqual([
      { scope: "user", id: "U0USER1", tokens_per_day: 200_000 },
      { scope: "user", id: "U0USER1", tokens_per_day: 300_000 },
      { scope: "user", id: "U0USER1", tokens_per_day: null },
      { scope: "channel", id: "C0GENERAL", tokens_per_day: 2_000_000 },
      { scope: "channel", id: "C0GENERAL", tokens_per_day: null },
    ]);

    // A typo: the sentence /hermes runs user: gives, with the close match; nothing is changed.
    const sentence = "No one named @li.mnig is in this workspace. Did you mean @li.ming (Li Ming)?";
    expect(await hermes("U0ADMIN", "budget @li.mnig 200k")).toContain(`:warning: ${sentence}`);
    expect(await hermes("U0ADMIN", "runs user:@li.mnig")).toContain(sentence);
    expect(await hermes("U0ADMIN", "budget #generl 1m")).toContain("Did you mean #general?");
    expect(await hermes("U0ADMIN", "budget Nobody At All 1m")).toContain(
      'No person or channel is named "Nobody At All".',
    );
    expect(await changes()).toHaveLength(before + 5);
    expect(await sq("SELECT 1 FROM users WHERE id = 'U0USER1' AND token_budget_per_day IS NOT NULL")).toEqual(
      [],
    );
  });

  it("over budget: one sentence in the thread, the model is not asked, no tool runs, the run is stopped", async () => {
    // Wang Lei (limit 10,000 from the test above) already used it all today.
    await sq("INSERT INTO token_usage (scope, scope_id, day, used) VALUES ('user', 'U0WANGLEI', $1, 10000)", [
      utcDay(new Date()),
    ]);
    model.enqueue(toolCalls([{ name: "create_ticket", args: { title: "VPN down" } }]));
    const d = await t.sender.appMention({
      user: "U0WANGLEI",
      channel: "C0GENERAL",
      text: "<@U0HERMES> open a ticket: VPN down",
    });
    const ts = d.message!.ts;
    const reply = await waitFor(
      () => botReplies(t, "C0GENERAL", ts).find((m) => m.text.includes("daily token budget")),
      30_000,
      "budget sentence",
    );
    expect(reply.text).toBe(
      "You have used your daily token budget (10,000 tokens); it resets at 00:00 UTC. An admin can raise it with /hermes budget <@U0WANGLEI> 20k.",
    );
    // The working message, if one went out, is removed once the sentence is posted.
    await waitFor(() => botReplies(t, "C0GENERAL", ts).length === 1, 30_000, "the working message removed");
    expect(botReplies(t, "C0GENERAL", ts)).toEqual([reply]);
    expect(model.requests).toHaveLength(0);
    expect(await sq("SELECT status FROM runs WHERE snapshot->'run'->>'userId' = 'U0WANGLEI'")).toEqual([
      { status: "stopped" },
    ]);
    expect(
      await sq("SELECT action FROM audit_log WHERE user_id = 'U0WANGLEI' AND action LIKE 'tool.%'"),
    ).toEqual([]);
    expect(await sq("SELECT count(*)::int AS n FROM tickets WHERE title = 'VPN down'")).toEqual([{ n: 0 }]);
    expect(await usedToday("user", "U0WANGLEI")).toBe(10_000);
  });

  it("a run resumed after approval is paid from the same requester's and channel's budgets", async () => {
    const channelBefore = await usedToday("channel", "C0OPS");
    model.enqueue(toolCalls([{ name: "send_message", args: { to: "<@U0WANGLEI>", text: "Lunch at noon" } }]));
    const d = await t.sender.appMention({
      user: "U0USER1",
      channel: "C0OPS",
      text: "<@U0HERMES> tell Wang Lei",
    });
    const ts = d.message!.ts;
    const card = await waitFor(() => cardsIn(t, "C0OPS", ts)[0], 30_000, "approval card");
    // The turn's one call: the scripted server reports 100 + 20 tokens.
    expect(await usedToday("user", "U0USER1")).toBe(120);
    expect(await usedToday("channel", "C0OPS")).toBe(channelBefore + 120);

    model.enqueue(answer("Told Wang Lei."));
    await t.sender.blockAction({
      user: "U0USER1",
      actionId: "hermes.approve",
      value: approvalIdOf(card),
      channel: "C0OPS",
      messageTs: card.ts,
    });
    await waitFor(
      () => botReplies(t, "C0OPS", ts).find((m) => messageText(m).includes("Told Wang Lei.")),
      30_000,
      "answer after approval",
    );
    expect(await usedToday("user", "U0USER1")).toBe(240);
    expect(await usedToday("channel", "C0OPS")).toBe(channelBefore + 240);
    expect(
      await sq("SELECT reserved FROM token_usage WHERE scope_id IN ('U0USER1', 'C0OPS') AND reserved <> 0"),
    ).toEqual([]);

    const mine = await hermes("U0USER1", "usage");
    expect(mine).toContain("*Your token usage* (<@U0USER1>)");
    expect(mine).toContain("• Today: 240 tokens (no limit)");
    expect(mine).toContain("• This month: 240 tokens");
    expect(mine).toContain(
      `• This channel (<#C0OPS>) today: ${(channelBefore + 240).toLocaleString("en-US")} tokens of 5,000,000 a day (0%)`,
    );
    expect(mine).not.toContain("Top users");
  });

  it("/hermes usage: admins also see today's top users and channels", async () => {
    const text = await hermes("U0ADMIN", "usage");
    expect(text).toContain("• Today: 0 tokens (no limit)");
    expect(text).toMatch(/\*Top users today\*\n1\. <@U0WANGLEI>: 10,000 tokens\n2\. <@U0USER1>: 240 tokens/);
    expect(text).toMatch(/\*Top channels today\*\n1\. <#C0OPS>: [\d,]+ tokens/);
  });

  it("a resumed run whose requester ran out of budget meanwhile: the approved call runs, then one sentence", async () => {
    expect(await hermes("U0ADMIN", "budget <@U0USER1> 5k")).toContain("is now 5,000 tokens a day.");
    model.enqueue(
      toolCalls([{ name: "send_message", args: { to: "<@U0WANGLEI>", text: "Budget review at four" } }]),
    );
    const d = await t.sender.appMention({
      user: "U0USER1",
      channel: "C0OPS",
      text: "<@U0HERMES> tell Wang Lei",
    });
    const ts = d.message!.ts;
    const card = await waitFor(() => cardsIn(t, "C0OPS", ts)[0], 30_000, "approval card");
    // While the card waits, the requester's other work uses up the day's budget.
    await sq(
      "UPDATE token_usage SET used = 5000 WHERE scope = 'user' AND scope_id = 'U0USER1' AND day = $1",
      [utcDay(new Date())],
    );
    model.enqueue(answer("Told Wang Lei."));
    await t.sender.blockAction({
      user: "U0USER1",
      actionId: "hermes.approve",
      value: approvalIdOf(card),
      channel: "C0OPS",
      messageTs: card.ts,
    });
    const reply = await waitFor(
      () => botReplies(t, "C0OPS", ts).find((m) => m.text.includes("daily token budget")),
      30_000,
      "budget sentence after approval",
    );
    expect(reply.text).toBe(
      "You have used your daily token budget (5,000 tokens); it resets at 00:00 UTC. An admin can raise it with /hermes budget <@U0USER1> 10k.",
    );
    // The approved call ran (a human decided it); the model was not asked again.
    expect(t.ws.history("D0WANGLEI").filter((m) => m.text.includes("Budget review at four"))).toHaveLength(1);
    expect(model.requests).toHaveLength(1);
    expect(model.remaining).toBe(1);
    expect(await usedToday("user", "U0USER1")).toBe(5000);
  });
  it("out of budget, commands still work: `help` and an approved `run …` answer as usual and cost nothing", async () => {
    // Wang Lei used his whole 10,000 today (above); command mode asks no model, so it is not charged.
    const asked = await t.sender.appMention({
      user: "U0WANGLEI",
      channel: "C0GENERAL",
      text: "<@U0HERMES> help",
    });
    const help = await waitFor(
      () =>
        botReplies(t, "C0GENERAL", asked.message!.ts).find((m) =>
          messageText(m).includes("Tools you may use:"),
        ),
      30_000,
      "the tool list",
    );
    expect(messageText(help)).not.toContain("daily token budget");

    const d = await t.sender.appMention({
      user: "U0WANGLEI",
      channel: "C0GENERAL",
      text: '<@U0HERMES> run send_message to=<@U0USER1> text="Standup moved to ten"',
    });
    const ts = d.message!.ts;
    const card = await waitFor(() => cardsIn(t, "C0GENERAL", ts)[0], 30_000, "approval card");
    await t.sender.blockAction({
      user: "U0WANGLEI",
      actionId: "hermes.approve",
      value: approvalIdOf(card),
      channel: "C0GENERAL",
      messageTs: card.ts,
    });
    await waitFor(
      () => t.ws.history("D0USER1").find((m) => m.text.includes("Standup moved to ten")),
      30_000,
      "the message sent",
    );
    const runs = () =>
      sq<{ status: string }>(
        "SELECT status FROM runs WHERE snapshot->'run'->>'userId' = 'U0WANGLEI' AND snapshot->'run'->>'sessionKey' LIKE $1",
        [`%${ts}`],
      );
    await waitFor(async () => (await runs())[0]?.status === "completed", 30_000, "the run completed");
    expect(
      botReplies(t, "C0GENERAL", ts)
        .map((m) => messageText(m))
        .join("\n"),
    ).not.toContain("daily token budget");
    expect(model.requests).toHaveLength(0);
    expect(await usedToday("user", "U0WANGLEI")).toBe(10_000);
  });
});
