import type pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { testPool } from "../helpers/pg.ts";
import { answer, type RecordedRequest, ScriptedModelServer } from "../helpers/scripted-model.ts";
import { botReplies, commandReply, messageText } from "../helpers/slack-thread.ts";

const EVERYONE = ["U0HERMES", "U0ADMIN", "U0USER1", "U0WANGLEI"];

/**
 * A profile's model (and fallback), daily token budget and streaming, end to end: set with
 * `/hermes profile set` through the real receiver, run by the worker against the scripted model
 * (which streams when asked: HERMES_STREAMING=auto), budgets and audit in Postgres.
 */
describe("profile settings: model, fallback, budget, streaming, the tools a channel shows", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  let db: pg.Pool;
  const sq = <T extends pg.QueryResultRow>(text: string, values: unknown[] = []) =>
    db.query<T>(text, values).then((r) => r.rows);

  const hermes = (user: string, text: string, channel: string) => commandReply(t, user, text, channel);

  /** Mentions Hermes in `channel`; resolves with the thread's ts once a reply containing `expected` is there. */
  async function ask(channel: string, expected: string): Promise<string> {
    const d = await t.sender.appMention({ user: "U0USER1", channel, text: "<@U0HERMES> hello" });
    const ts = d.message!.ts;
    await waitFor(
      () => botReplies(t, channel, ts).find((m) => messageText(m).includes(expected)),
      30_000,
      expected,
    );
    return ts;
  }

  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({
      model,
      env: { HERMES_STREAMING: "auto", HERMES_FALLBACK_MODEL: "scripted-fallback" },
    });
    for (const [id, name] of [
      ["C0MODEL", "model-room"],
      ["C0STREAM", "stream-room"],
      ["C0BUDGET", "budget-room"],
      ["C0TOOLS", "tools-room"],
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

  it("the profile's model is the one the model server is asked for; other channels keep HERMES_MODEL", async () => {
    expect(await hermes("U0ADMIN", "profile set model ops-model-14b", "C0MODEL")).toContain(
      "• Model: `ops-model-14b`",
    );
    model.enqueue(answer("From the ops model."));
    await ask("C0MODEL", "From the ops model.");
    model.enqueue(answer("From the usual model."));
    await ask("C0GENERAL", "From the usual model.");
    expect(model.requests.map((r) => r.body.model)).toEqual(["ops-model-14b", "scripted"]);
    const [changed] = await sq<{ args: { after: Record<string, unknown> } }>(
      "SELECT args FROM audit_log WHERE action = 'profile.changed' AND args->>'channel' = 'C0MODEL'",
    );
    expect(changed!.args.after).toMatchObject({ model: "ops-model-14b", fallback_model: null });
  });

  it("the profile's fallback takes over when its model fails, as HERMES_FALLBACK_MODEL does", async () => {
    expect(await hermes("U0ADMIN", "profile set fallback_model ops-fallback-7b", "C0MODEL")).toContain(
      "• Fallback model: `ops-fallback-7b`",
    );
    model.enqueue({ status: 503, body: { error: { message: "overloaded" } } }, answer("From the fallback."));
    await ask("C0MODEL", "From the fallback.");
    expect(model.requests.map((r) => r.body.model)).toEqual(["ops-model-14b", "ops-fallback-7b"]);
  });

  it("a model name the server does not know ends the run with a sentence naming the profile", async () => {
    const known = new Set(["scripted", "scripted-fallback"]);
    model.fallback = (r: RecordedRequest) =>
      known.has(r.body.model ?? "")
        ? answer("Known model.")
        : { status: 404, body: { error: { message: `model '${r.body.model}' not found` } } };
    expect(await hermes("U0ADMIN", "profile set model no-such-model", "C0MODEL")).toContain(
      "`no-such-model`",
    );
    await hermes("U0ADMIN", "profile set fallback_model no-such-fallback", "C0MODEL");
    const ts = await ask("C0MODEL", "I could not get an answer from the model");
    const replies = botReplies(t, "C0MODEL", ts).map(messageText).join("\n");
    expect(replies).toContain("answered HTTP 404");
    expect(replies).toContain(
      "The model `no-such-fallback` this channel's profile names may not exist there: an admin can change it with `/hermes profile set fallback_model …`.",
    );
    // A name with spaces is refused when it is set.
    expect(await hermes("U0ADMIN", "profile set model two words", "C0MODEL")).toContain(
      "`two words` is not a model name",
    );
  });

  it("streaming off in a channel: the model is not asked to stream and the answer is posted whole", async () => {
    expect(await hermes("U0ADMIN", "profile set streaming off", "C0STREAM")).toContain("• Streaming: off");
    const startsBefore = t.emulator.callsTo("chat.startStream").length;
    model.enqueue(answer("An unstreamed answer."));
    await ask("C0STREAM", "An unstreamed answer.");
    expect(model.requests[0]!.body.stream).toBeFalsy();
    expect(t.emulator.callsTo("chat.startStream")).toHaveLength(startsBefore);
    // Elsewhere HERMES_STREAMING=auto still streams.
    model.enqueue(answer("A streamed answer."));
    await ask("C0GENERAL", "A streamed answer.");
    expect(model.requests[1]!.body.stream).toBe(true);
    const [audit] = await sq<{ args: { after: Record<string, unknown> } }>(
      "SELECT args FROM audit_log WHERE action = 'profile.changed' AND args->>'channel' = 'C0STREAM'",
    );
    expect(audit!.args.after).toMatchObject({ streaming: "off" });
    expect(await hermes("U0ADMIN", "profile set streaming sometimes", "C0STREAM")).toContain(
      "is not a streaming setting",
    );
  });

  it("the profile's daily token budget stops a run with the budget sentence; /hermes budget wins over it", async () => {
    expect(await hermes("U0ADMIN", "profile set tokens_per_day 10", "C0BUDGET")).toContain(
      "• Daily token budget: 10 tokens",
    );
    await ask("C0BUDGET", "more than this channel's whole daily token budget (10 tokens)");
    expect(model.requests).toHaveLength(0);
    expect(await hermes("U0ADMIN", "profile set tokens_per_day lots", "C0BUDGET")).toContain(
      "`lots` is not a daily token budget",
    );
    // An admin's `/hermes budget #channel` is the channel's budget whatever its profile says.
    expect(await hermes("U0ADMIN", "budget <#C0BUDGET|budget-room> 1m", "C0BUDGET")).toContain(
      "<#C0BUDGET>'s daily token budget is now 1,000,000 tokens a day.",
    );
    model.enqueue(answer("Within the override."));
    await ask("C0BUDGET", "Within the override.");
    const [audit] = await sq<{ args: { after: Record<string, unknown> } }>(
      "SELECT args FROM audit_log WHERE action = 'profile.changed' AND args->>'channel' = 'C0BUDGET'",
    );
    expect(audit!.args.after).toMatchObject({ tokens_per_day: 10 });
  });

  it("/hermes tools in a channel with a profile lists only what its runs may call, and says why", async () => {
    await hermes("U0ADMIN", "profile set tools get_current_time,search_tickets", "C0TOOLS");
    const narrowed = await hermes("U0USER1", "tools", "C0TOOLS");
    expect(narrowed).toContain("Tools you may use in this channel* (2,");
    expect(narrowed).toContain("`get_current_time`");
    expect(narrowed).toContain("`search_tickets`");
    expect(narrowed).not.toContain("`create_ticket`");
    expect(narrowed).toContain("Narrowed by this channel's profile");
    const everywhere = await hermes("U0USER1", "tools", "C0GENERAL");
    expect(everywhere).toContain("`create_ticket`");
    expect(everywhere).not.toContain("Narrowed by");
  });
});
