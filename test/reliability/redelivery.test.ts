import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sql } from "../../src/store/drizzle.ts";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { TEST_AUDIT_KEY } from "../helpers/hermes-process.ts";
import { answer, ScriptedModelServer, type ScriptStep, toolCalls } from "../helpers/scripted-model.ts";
import { settledReplies } from "../helpers/slack-thread.ts";

const CHANNEL = "C0OPS";
const botReplies = (t: TestHermes, ts: string) =>
  (t.thread(CHANNEL, ts) ?? []).filter((m) => m.user === "U0HERMES" && m.ts !== ts);
const delayed = (step: ScriptStep, delayMs: number): ScriptStep => ({
  ...(step as { completion: Record<string, unknown> }),
  delayMs,
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Slack redelivers an event it thinks was not acknowledged (up to 3 retries, same body and event_id,
 * `x-slack-retry-num` / `x-slack-retry-reason`). Four deliveries of one signed event, spread over the
 * turn — one racing the first, one while the model works, one while the tool runs, one after the
 * answer — make one turn, one tool execution and one `tool.executed` row, in both queue modes.
 */
describe.each([
  { mode: "embedded queue (in-process)", redis: false },
  { mode: "Redis (BullMQ)", redis: true },
])("redelivery: $mode", ({ redis }) => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({ model, redis, env: { HERMES_AUDIT_KEY: TEST_AUDIT_KEY } });
  }, 120_000);
  afterAll(async () => {
    await t?.stop();
    await model.stop();
  });
  beforeEach(() => {
    model.reset();
    t.emulator.clearCalls();
  });

  it("the same signed event 4 times (before, during and after its turn) → one turn, one execution, one tool.executed", async () => {
    const title = `Redelivered ${Math.random().toString(36).slice(2, 8)}`;
    model.enqueue(
      delayed(toolCalls([{ name: "create_ticket", args: { title, priority: "high" } }]), 400),
      delayed(answer("Opened the ticket."), 400),
    );
    const first = await t.sender.appMention({
      user: "U0USER1",
      channel: CHANNEL,
      text: "<@U0HERMES> open a ticket, the VPN is down",
    });
    const ts = first.message!.ts;
    // Before the turn starts: a retry racing the first delivery's handling.
    const retry = (n: number) => t.sender.redeliver(first, { retryNum: n, retryReason: "http_timeout" });
    const deliveries = [first, await retry(1)];
    // During: while the model plans the call…
    await waitFor(() => model.requests.length >= 1, 30_000, "the first model call");
    deliveries.push(await retry(2));
    // …and once the tool has run, while the model writes the answer.
    await waitFor(() => model.requests.length >= 2, 30_000, "the second model call");
    const retry3 = await retry(3);
    deliveries.push(retry3);
    await waitFor(() => botReplies(t, ts).find((m) => m.text === "Opened the ticket."), 30_000, "answer");
    // After: Slack's delayed-events redelivery (it reuses the retry headers).
    deliveries.push(await t.sender.redeliver(first, { retryNum: 3, retryReason: "http_error" }));
    expect(deliveries.map((d) => d.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(deliveries.map((d) => d.eventId))).toEqual(new Set([first.eventId]));
    // Nothing more may happen: give a late duplicate turn time to show itself.
    await sleep(1500);

    expect(model.requests).toHaveLength(2);
    expect((await settledReplies(t, CHANNEL, ts)).map((m) => m.text)).toEqual(["Opened the ticket."]);
    const rows = await t.hermes.services.storage.db.db.execute<{ n: number }>(
      sql`select count(*)::int as n from tickets where title = ${title}`,
    );
    expect(rows.rows[0]!.n).toBe(1);
    const audit = (await t.hermes.services.storage.audit.query({ tool: "create_ticket", limit: 50 })).rows;
    expect(audit.filter((r) => r.action === "tool.requested")).toHaveLength(1);
    expect(audit.filter((r) => r.action === "tool.executed")).toHaveLength(1);
    expect(audit.filter((r) => r.action === "tool.failed")).toHaveLength(0);
    const status = await t.hermes.services.storage.db.db.execute<{ status: string }>(
      sql`select status from slack_events where event_id = ${first.eventId!}`,
    );
    expect(status.rows.map((r) => r.status)).toEqual(["done"]);
    expect((await t.hermes.services.storage.audit.verify()).ok).toBe(true);
  }, 120_000);
});
