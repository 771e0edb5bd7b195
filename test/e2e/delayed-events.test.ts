import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postAsUser } from "../../src/sandbox/post-as-user.ts";
import { sql } from "../../src/store/drizzle.ts";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { answer, type RecordedRequest, ScriptedModelServer } from "../helpers/scripted-model.ts";

const CHANNEL = "C0OPS";
const userTexts = (req: RecordedRequest) =>
  req.body.messages.filter((m) => m.role === "user").map((m) => m.content ?? "");
/** The request's own message: the last user text, without the thread context quoted before it. */
const asked = (req: RecordedRequest) => (userTexts(req).at(-1) ?? "").replace(/^[\s\S]*\n\n/, "");

/**
 * Events Slack replays after an outage: the same event_id again hours later, and a thread's old
 * messages arriving all at once, out of the order of their ts (some of them twice). Each message is
 * taken once (the durable dedupe in Postgres), and a thread's messages are answered in ts order.
 */
describe("delayed events after an outage", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({ model });
    model.fallback = (req: RecordedRequest) => answer(`Answered "${asked(req)}".`);
  }, 120_000);
  afterAll(async () => {
    await t?.stop();
    await model.stop();
  });

  const answers = (ts: string) =>
    (t.thread(CHANNEL, ts) ?? [])
      .filter((m) => m.user === "U0HERMES" && m.text.startsWith("Answered"))
      .map((m) => m.text);

  it("the same event_id delivered again hours later runs nothing", async () => {
    const d = await t.sender.appMention({
      user: "U0USER1",
      channel: CHANNEL,
      text: "<@U0HERMES> before the outage",
    });
    const ts = d.message!.ts;
    await waitFor(() => answers(ts).length === 1 || undefined, 30_000, "the first answer");
    const before = model.requests.length;
    // Hours pass: the event's record is as old as an outage (well within retention).
    await t.hermes.services.storage.db.db.execute(
      sql`update slack_events set received_at = now() - interval '5 hours', finished_at = now() - interval '5 hours' where event_id = ${d.eventId!}`,
    );
    const again = await t.sender.redeliver(d, { retryNum: 3, retryReason: "http_error" });
    expect(again.status).toBe(200);
    // A later message in another thread is answered: by then a replayed turn would have run too.
    const later = await t.sender.appMention({
      user: "U0USER1",
      channel: CHANNEL,
      text: "<@U0HERMES> after the outage",
    });
    await waitFor(() => answers(later.message!.ts).length === 1 || undefined, 30_000, "the later answer");
    expect(model.requests.slice(before).map(asked)).toEqual(["after the outage"]);
    expect(answers(ts)).toEqual(['Answered "before the outage".']);
  });

  it("a thread's old messages arriving at once, out of order and some twice, are answered once each, in ts order", async () => {
    const first = postAsUser(t.ws, { user: "U0USER1", channel: CHANNEL, text: "<@U0HERMES> old 1" });
    const replies = [2, 3, 4].map((n) =>
      postAsUser(t.ws, {
        user: "U0USER1",
        channel: CHANNEL,
        text: `<@U0HERMES> old ${n}`,
        threadTs: first.ts,
      }),
    );
    const messages = [first, ...replies];
    const before = model.requests.length;
    const deliver = (i: number) =>
      t.sender.appMention({
        user: "U0USER1",
        channel: CHANNEL,
        text: messages[i]!.text,
        ts: messages[i]!.ts,
        ...(i > 0 ? { threadTs: first.ts } : {}),
      });
    // Slack's backlog, newest first, all at once.
    const delivered = await Promise.all([3, 1, 0, 2].map(deliver));
    expect(delivered.map((d) => d.status)).toEqual([200, 200, 200, 200]);
    // And two of them replayed again while the backlog is worked off.
    const replayed = await Promise.all(
      [delivered[0]!, delivered[2]!].map((d) =>
        t.sender.redeliver(d, { retryNum: 1, retryReason: "http_timeout" }),
      ),
    );
    expect(replayed.map((d) => d.status)).toEqual([200, 200]);

    await waitFor(() => answers(first.ts).length >= 4 || undefined, 60_000, "four answers");
    const ran = model.requests.slice(before).map(asked);
    expect(ran).toEqual(["old 1", "old 2", "old 3", "old 4"]);
    expect(answers(first.ts)).toEqual([
      'Answered "old 1".',
      'Answered "old 2".',
      'Answered "old 3".',
      'Answered "old 4".',
    ]);
    // Each later turn saw the answers before it.
    const last = model.requests.slice(before).at(-1)!;
    const seen = last.body.messages.filter((m) => m.role === "assistant").map((m) => m.content);
    expect(seen).toEqual(['Answered "old 1".', 'Answered "old 2".', 'Answered "old 3".']);
    const events = await t.hermes.services.storage.db.db.execute<{ n: number }>(
      sql`select count(*)::int as n from slack_events where event_id in (${sql.join(
        delivered.map((d) => sql`${d.eventId!}`),
        sql`, `,
      )})`,
    );
    expect(events.rows[0]!.n).toBe(4);
  }, 90_000);
});
