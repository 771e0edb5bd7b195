import type pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { utcDay } from "../../src/store/budget-store.ts";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { testPool } from "../helpers/pg.ts";
import { answer, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";
import { botReplies, commandReply, messageText } from "../helpers/slack-thread.ts";

const EVERYONE = ["U0HERMES", "U0ADMIN", "U0USER1"];

/**
 * A channel profile's settings beyond the parent run, end to end through the real receiver and
 * worker, the scripted model and Postgres: a delegated sub-agent asks for the profile's model (and
 * its fallback) and is paid from the same budgets; `/hermes budget` and `/hermes usage` show the
 * limit a channel's runs are held to, and where it comes from.
 */
describe("profile settings reach delegated sub-agents and the budget commands", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  let db: pg.Pool;
  const usedToday = async (scope: string, id: string) =>
    Number(
      (
        await db.query<{ used: string }>(
          "SELECT used FROM token_usage WHERE scope = $1 AND scope_id = $2 AND day = $3",
          [scope, id, utcDay(new Date())],
        )
      ).rows[0]?.used ?? 0,
    );

  const hermes = (user: string, text: string, channel: string) => commandReply(t, user, text, channel);

  /** Mentions Hermes in `channel`; resolves once a reply containing `expected` is in the thread. */
  async function ask(channel: string, expected: string): Promise<void> {
    const d = await t.sender.appMention({ user: "U0USER1", channel, text: "<@U0HERMES> research this" });
    const ts = d.message!.ts;
    await waitFor(
      () => botReplies(t, channel, ts).find((m) => messageText(m).includes(expected)),
      30_000,
      expected,
    );
  }

  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({
      model,
      env: { HERMES_FALLBACK_MODEL: "scripted-fallback", HERMES_BUDGET_CHANNEL_TOKENS_PER_DAY: "5m" },
    });
    for (const [id, name] of [
      ["C0DELEG", "delegate-room"],
      ["C0PBUDGET", "profile-budget-room"],
    ])
      t.ws.addChannel({ id: id!, name: name!, members: EVERYONE });
    db = testPool({ connectionString: t.db.url, max: 2 });
  }, 180_000);
  afterAll(async () => {
    await db?.end();
    await t?.stop();
    await model.stop();
  });
  beforeEach(() => {
    model.reset();
    model.fallback = undefined;
  });

  it("a delegated sub-agent asks for the channel profile's model, unstreamed, paid from the run's budgets", async () => {
    expect(await hermes("U0ADMIN", "profile set model model-x", "C0DELEG")).toContain("• Model: `model-x`");
    model.enqueue(
      toolCalls([{ name: "delegate", args: { task: "find what changed today" } }]),
      answer("Nothing changed today."), // the sub-agent
      answer("The sub-agent found that nothing changed."),
    );
    await ask("C0DELEG", "The sub-agent found that nothing changed.");
    expect(model.requests.map((r) => r.body.model)).toEqual(["model-x", "model-x", "model-x"]);
    // The sub-agent's request is its own fresh context, and is never streamed.
    const sub = model.requests[1]!;
    expect(JSON.stringify(sub.body)).toContain("find what changed today");
    expect(sub.body.stream).toBeFalsy();
    // Every call, the sub-agent's too, counted against the requester's and the channel's budgets.
    await waitFor(async () => (await usedToday("channel", "C0DELEG")) === 360, 10_000, "three calls counted");
    expect(await usedToday("user", "U0USER1")).toBe(360);
  });

  it("a delegated sub-agent's model failing gives way to the profile's fallback model", async () => {
    expect(await hermes("U0ADMIN", "profile set fallback_model fallback-x", "C0DELEG")).toContain(
      "• Fallback model: `fallback-x`",
    );
    model.enqueue(
      toolCalls([{ name: "delegate", args: { task: "check the queue" } }]),
      { status: 503, body: { error: { message: "overloaded" } } }, // the sub-agent's model
      answer("The queue is empty."), // the sub-agent, on the fallback
      answer("The queue is empty, says the sub-agent."),
    );
    await ask("C0DELEG", "The queue is empty, says the sub-agent.");
    expect(model.requests.map((r) => r.body.model)).toEqual(["model-x", "model-x", "fallback-x", "model-x"]);
  });

  it("/hermes budget and /hermes usage show the profile's tokens_per_day where it applies, and say so", async () => {
    // Without a profile budget: the configured default.
    expect(await hermes("U0USER1", "budget", "C0PBUDGET")).toContain(
      "• This channel (<#C0PBUDGET>): 5,000,000 tokens a day (the default)",
    );
    expect(await hermes("U0ADMIN", "profile set tokens_per_day 250k", "C0PBUDGET")).toContain(
      "• Daily token budget: 250,000 tokens",
    );
    expect(await hermes("U0USER1", "budget", "C0PBUDGET")).toContain(
      "• This channel (<#C0PBUDGET>): 250,000 tokens a day (from this channel's profile)",
    );
    expect(await hermes("U0USER1", "usage", "C0PBUDGET")).toContain(
      "• This channel (<#C0PBUDGET>) today: 0 tokens of 250,000 a day (0%) (from this channel's profile)",
    );
    // An admin may look at one channel from anywhere.
    expect(await hermes("U0ADMIN", "budget <#C0PBUDGET|profile-budget-room>", "C0GENERAL")).toContain(
      "<#C0PBUDGET>'s daily token budget is 250,000 tokens a day (from this channel's profile).",
    );
    // A member may not (as for any argument of `/hermes budget`).
    expect(await hermes("U0USER1", "budget <#C0PBUDGET>", "C0GENERAL")).toContain(
      "Only admins can change token budgets.",
    );
    // An admin's override wins over the profile; cleared, the profile's applies again.
    expect(await hermes("U0ADMIN", "budget <#C0PBUDGET|profile-budget-room> 1m", "C0PBUDGET")).toContain(
      "<#C0PBUDGET>'s daily token budget is now 1,000,000 tokens a day.",
    );
    expect(await hermes("U0USER1", "budget", "C0PBUDGET")).toContain(
      "• This channel (<#C0PBUDGET>): 1,000,000 tokens a day (set by an admin)",
    );
    const usage = await hermes("U0USER1", "usage", "C0PBUDGET");
    expect(usage).toContain("• This channel (<#C0PBUDGET>) today: 0 tokens of 1,000,000 a day (0%)");
    expect(usage).not.toContain("profile");
    expect(await hermes("U0ADMIN", "budget <#C0PBUDGET> off", "C0PBUDGET")).toContain(
      "<#C0PBUDGET>'s daily token budget is back to 250,000 tokens a day (from this channel's profile).",
    );
    // Elsewhere the configured default still applies.
    expect(await hermes("U0ADMIN", "budget <#C0GENERAL>", "C0PBUDGET")).toContain(
      "<#C0GENERAL>'s daily token budget is 5,000,000 tokens a day (the default).",
    );
  });
});
