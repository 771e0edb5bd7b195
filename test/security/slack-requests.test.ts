import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { signSlackRequest } from "../../src/sandbox/slack-signature.ts";
import { SIGNING_SECRET, startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { execSql } from "../helpers/pg.ts";
import { answer, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";

/**
 * Hostile and malformed requests against the whole product over HTTP (the Bolt receiver with its
 * request guard, the Web API emulator, Postgres, the scripted model): each is refused or ignored,
 * never answered 500, and leaves nothing behind — no audit row, no message, no turn.
 */
describe("Slack requests: forged, stale, replayed and malformed bodies", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  let url: string;
  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({ model });
    url = `http://127.0.0.1:${t.hermes.port}/slack/events`;
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
    await model.stop();
  });
  beforeEach(() => {
    model.reset();
    t.emulator.clearCalls();
  });

  const now = () => Math.floor(Date.now() / 1000);

  /** POSTs `body` signed with our secret (unless told otherwise), as Slack would. */
  async function post(
    body: string,
    o: { contentType?: string; timestamp?: number; secret?: string; unsigned?: boolean } = {},
  ) {
    const headers: Record<string, string> = {
      "content-type": o.contentType ?? "application/json",
      ...(o.unsigned
        ? {}
        : signSlackRequest({
            signingSecret: o.secret ?? SIGNING_SECRET,
            body,
            timestamp: o.timestamp ?? now(),
          })),
    };
    const res = await fetch(url, { method: "POST", headers, body });
    return { status: res.status, text: await res.text() };
  }

  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
  const click = (payload: unknown) => form({ payload: JSON.stringify(payload) });
  const mention = (over: Record<string, unknown> = {}) =>
    JSON.stringify({
      token: "x",
      team_id: "T0001",
      api_app_id: "A0HERMES",
      type: "event_callback",
      event_id: `Ev${Math.random().toString(36).slice(2, 12).toUpperCase()}`,
      event_time: now(),
      event: {
        type: "app_mention",
        user: "U0USER1",
        text: "<@U0HERMES> hi",
        ts: `${now()}.000100`,
        channel: "C0OPS",
        team: "T0001",
      },
      ...over,
    });

  async function auditCount(): Promise<number> {
    const [row] = await execSql<{ n: number }>(
      t.hermes.services.storage.db.db,
      "SELECT count(*)::int AS n FROM audit_log",
    );
    return row!.n;
  }
  async function eventClaims(): Promise<number> {
    const [row] = await execSql<{ n: number }>(
      t.hermes.services.storage.db.db,
      "SELECT count(*)::int AS n FROM slack_events WHERE event_id NOT LIKE 'cmd:%' AND event_id NOT LIKE 'int:%'",
    );
    return row!.n;
  }

  /** Nothing happened: no model call, no message of any kind, no audit row, no turn claimed or queued. */
  async function expectNoSideEffects(before: { audit: number; claims: number }) {
    // Listeners run after the ack; a short settle lets anything wrongly started show up.
    await new Promise((r) => setTimeout(r, 300));
    expect(model.requests).toHaveLength(0);
    const posted = t.emulator.calls.filter((c) => /^chat\./.test(c.method)).map((c) => c.method);
    expect(posted).toEqual([]);
    expect(await auditCount()).toBe(before.audit);
    expect(await eventClaims()).toBe(before.claims);
    const counts = await t.hermes.services.queue.counts();
    expect(counts.waiting + counts.active + counts.delayed).toBe(0);
  }

  it("refuses bad and missing signatures, old and future timestamps (401), with no side effects", async () => {
    const before = { audit: await auditCount(), claims: await eventClaims() };
    expect((await post(mention(), { secret: "not-the-secret" })).status).toBe(401);
    expect((await post(mention(), { unsigned: true })).status).toBe(401);
    expect((await post(mention(), { timestamp: now() - 6 * 60 })).status).toBe(401);
    // Bolt itself accepts any timestamp from the future; the guard refuses past the same 5 minutes.
    const future = await post(mention(), { timestamp: now() + 6 * 60 });
    expect(future.status).toBe(401);
    expect(future.text).toContain("future");
    expect((await post(mention(), { timestamp: now() + 10 * 365 * 86_400 })).status).toBe(401);
    // Inside the window either way, a signed handshake is still answered (clocks drift a little).
    const handshake = JSON.stringify({ type: "url_verification", challenge: "c" });
    expect((await post(handshake, { timestamp: now() + 4 * 60 })).status).toBe(200);
    expect((await post(handshake, { timestamp: now() - 4 * 60 })).status).toBe(200);
    const tampered = signSlackRequest({ signingSecret: SIGNING_SECRET, body: mention(), timestamp: now() });
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...tampered },
      body: mention({ team_id: "T0EVIL" }),
    });
    expect(res.status).toBe(401);
    await expectNoSideEffects(before);
  });

  it("refuses an unsigned event under every spelling of the events path Bolt routes (401), with no side effects", async () => {
    // Bolt's own signature check is off: the guard must see every request Bolt would route.
    const before = { audit: await auditCount(), claims: await eventClaims() };
    const raw = (path: string, body: string) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          {
            host: "127.0.0.1",
            port: t.hermes.port,
            method: "POST",
            path,
            headers: { "content-type": "application/json" },
          },
          (res) => {
            res.resume();
            res.on("end", () => resolve(res.statusCode ?? 0));
          },
        );
        req.on("error", reject);
        req.end(body);
      });
    for (const path of [
      "/slack/events",
      "/slack/events?x=1",
      "/slack/events#x",
      "/slack/./events",
      "/slack/x/../events",
      "/slack/events?#",
    ]) {
      expect({ path, status: await raw(path, mention()) }).toEqual({ path, status: 401 });
    }
    await expectNoSideEffects(before);
  });

  it("refuses oversized, unparsable and wrongly typed bodies (413/400/415), never 500", async () => {
    const before = { audit: await auditCount(), claims: await eventClaims() };
    const huge = mention({ padding: "x".repeat(2 * 1024 * 1024) });
    expect((await post(huge)).status).toBe(413);
    expect((await post("{not json")).status).toBe(400);
    expect((await post("[1,2,3]")).status).toBe(400);
    expect((await post("null")).status).toBe(400);
    expect((await post(mention(), { contentType: "text/plain" })).status).toBe(415);
    expect(
      (await post(form({ payload: "{oops" }), { contentType: "application/x-www-form-urlencoded" })).status,
    ).toBe(400);
    expect((await post(`{"type":"event_callback","event":${"[".repeat(20_000)}`)).status).toBe(400);
    await expectNoSideEffects(before);
  });

  it("refuses signed events that are malformed (event: null, no type, odd fields) with 400", async () => {
    const before = { audit: await auditCount(), claims: await eventClaims() };
    for (const body of [
      mention({ event: null }),
      mention({ event: "app_mention" }),
      mention({ event: { user: "U0USER1", channel: "C0OPS" } }),
      mention({ event: { type: "app_mention", channel: null, user: "U0USER1" } }),
      mention({ event: { type: "reaction_added", item: "C0OPS" } }),
      mention({ authorizations: [null] }),
      mention({ event: { type: "app_mention", user: "U0USER1", text: 42, ts: "1.2", channel: "C0OPS" } }),
      mention({ type: "something_else" }),
    ]) {
      const res = await post(body);
      expect(res.status, body.slice(0, 200)).toBe(400);
    }
    await expectNoSideEffects(before);
  });

  it("acks and ignores signed kinds Hermes does not handle: unknown events, interactions and odd fields", async () => {
    const before = { audit: await auditCount(), claims: await eventClaims() };
    const statuses = [
      await post(mention({ event: { type: "reaction_added", user: "U0USER1", item: { channel: "C0OPS" } } })),
      await post(JSON.stringify({ type: "app_rate_limited", minute_rate_limited: 1 })),
      await post(JSON.stringify({ type: "made_up" })),
      // A well-formed event the bot must not answer (a bot's own mention).
      await post(
        mention({
          event: {
            type: "app_mention",
            bot_id: "B0OTHER",
            text: "<@U0HERMES> hi",
            ts: "1.2",
            channel: "C0OPS",
          },
        }),
      ),
      await post(click({ type: "view_submission", user: { id: "U0USER1" }, view: {} }), {
        contentType: "application/x-www-form-urlencoded",
      }),
      await post(click({ type: "shortcut", callback_id: "x", user: { id: "U0USER1" } }), {
        contentType: "application/x-www-form-urlencoded",
      }),
      await post(form({ hello: "world" }), { contentType: "application/x-www-form-urlencoded" }),
    ].map((r) => r.status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200]);
    // What Slack does send still works: the URL handshake and its SSL check.
    const handshake = await t.sender.urlVerification("challenge-123");
    expect(handshake.status).toBe(200);
    expect(JSON.parse(handshake.body)).toEqual({ challenge: "challenge-123" });
    const ssl = await post(form({ ssl_check: "1", token: "x" }), {
      contentType: "application/x-www-form-urlencoded",
    });
    expect(ssl.status).toBe(200);
    await expectNoSideEffects(before);
  });

  it("refuses clicks without a user and commands without their fields (400); acks unknown action ids at once", async () => {
    const before = { audit: await auditCount(), claims: await eventClaims() };
    const formType = { contentType: "application/x-www-form-urlencoded" };
    const action = { action_id: "hermes.approve", block_id: "b", type: "button", value: "apr_x" };
    const base = {
      type: "block_actions",
      team: { id: "T0001" },
      channel: { id: "C0OPS" },
      actions: [action],
    };
    expect((await post(click(base), formType)).status).toBe(400);
    expect((await post(click({ ...base, user: null }), formType)).status).toBe(400);
    expect((await post(click({ ...base, user: { id: "U0USER1" }, actions: [] }), formType)).status).toBe(400);
    expect((await post(click({ ...base, user: { id: "U0USER1" }, channel: null }), formType)).status).toBe(
      400,
    );
    expect((await post(form({ command: "/hermes", text: "help" }), formType)).status).toBe(400);
    const twice = `${form({ command: "/hermes", text: "help", user_id: "U0USER1", channel_id: "C0OPS" })}&text=again`;
    expect((await post(twice, formType)).status).toBe(400); // `text` twice is a list, not a string
    // Well formed, but no listener takes the action id: acked (Bolt alone would leave it to time out).
    const unknown = await post(
      click({ ...base, user: { id: "U0USER1" }, actions: [{ ...action, action_id: "made.up" }] }),
      formType,
    );
    expect(unknown.status).toBe(200);
    await expectNoSideEffects(before);
  });

  it("a replayed signed `/hermes schedule add` creates one schedule; the replay gets no answer", async () => {
    const scheduleCount = async () =>
      (
        await execSql<{ n: number }>(
          t.hermes.services.storage.db.db,
          "SELECT count(*)::int AS n FROM schedules",
        )
      )[0]!.n;
    const before = await scheduleCount();
    const first = await t.sender.slashCommand({
      user: "U0ADMIN",
      channel: "C0OPS",
      text: 'schedule add "0 9 * * 1-5" <#C0OPS|ops> "summarize urgent open tickets"',
    });
    expect(first.status).toBe(200);
    await waitFor(async () => (await scheduleCount()) === before + 1, 10_000, "the schedule");
    const answered = () => t.emulator.calls.filter((c) => c.method === "chat.postEphemeral").length;
    const responses = () => t.emulator.workspace.ephemeralMessages("C0OPS", "U0ADMIN").length;
    const seen = { calls: answered(), responses: await waitFor(() => responses(), 10_000, "the answer") };

    // The attacker's copy: the very same bytes and headers, sent again (and again, concurrently).
    const replay = () =>
      fetch(url, { method: "POST", headers: first.request.headers, body: first.request.body }).then(
        (r) => r.status,
      );
    expect(await Promise.all([replay(), replay(), replay()])).toEqual([200, 200, 200]);
    // Re-signed with a fresh timestamp (as a holder of the secret could): the body is the same command.
    expect((await t.sender.redeliver(first, {})).status).toBe(200);
    await new Promise((r) => setTimeout(r, 500));
    expect(await scheduleCount()).toBe(before + 1);
    expect(answered()).toBe(seen.calls);
    expect(responses()).toBe(seen.responses);

    // A new command (Slack gives each a new trigger_id) is not a replay.
    const listed = await t.sender.slashCommand({ user: "U0ADMIN", channel: "C0OPS", text: "schedule list" });
    expect(listed.status).toBe(200);
    await waitFor(() => responses() > seen.responses, 10_000, "the list");
  });

  it("a replayed approval click has no effect: one decision, one execution, no extra reply; audited as ignored", async () => {
    model.enqueue(
      toolCalls([{ name: "send_message", args: { to: "<#C0OPS>", text: "Deploy at noon" } }]),
      answer("Posted."),
    );
    const d = await t.sender.appMention({ user: "U0USER1", channel: "C0OPS", text: "<@U0HERMES> tell ops" });
    const card = await waitFor(
      () =>
        (t.thread("C0OPS", d.message!.ts) ?? []).find((m) =>
          ((m.blocks ?? []) as Array<{ type: string }>).some((b) => b.type === "actions"),
        ),
      15_000,
      "approval card",
    );
    const approvalId = (
      (card.blocks as Array<{ type: string; elements?: Array<{ value?: string }> }>).find(
        (b) => b.type === "actions",
      )!.elements![0]!.value ?? ""
    ).toString();
    const clicked = await t.sender.blockAction({
      user: "U0USER1",
      channel: "C0OPS",
      messageTs: card.ts,
      actionId: "hermes.approve",
      value: approvalId,
    });
    expect(clicked.status).toBe(200);
    await waitFor(
      () => (t.thread("C0OPS", d.message!.ts) ?? []).find((m) => m.text === "Posted."),
      15_000,
      "the answer after approval",
    );
    const rows = async () =>
      execSql<{ action: string }>(
        t.hermes.services.storage.db.db,
        `SELECT action FROM audit_log WHERE approval_id = '${approvalId}' OR run_id IN (SELECT run_id FROM approvals WHERE id = '${approvalId}') ORDER BY id`,
      );
    const auditBefore = (await rows()).map((r) => r.action);
    expect(auditBefore.filter((a) => a === "tool.executed")).toHaveLength(1);
    const ephemeralsBefore = t.emulator.workspace.ephemeralMessages("C0OPS", "U0USER1").length;
    const postsBefore = t.emulator.callsTo("chat.postMessage").length;

    const replay = () =>
      fetch(url, { method: "POST", headers: clicked.request.headers, body: clicked.request.body }).then(
        (r) => r.status,
      );
    expect(await Promise.all([replay(), replay()])).toEqual([200, 200]);
    // Each replay is audited as an ignored click, and does nothing else.
    const after = await waitFor(
      async () => {
        const r = (await rows()).map((x) => x.action);
        return r.length >= auditBefore.length + 2 ? r : undefined;
      },
      30_000,
      "the replays' audit rows",
    );
    expect(after).toEqual([...auditBefore, "approval.ignored", "approval.ignored"]);
    expect(t.emulator.workspace.ephemeralMessages("C0OPS", "U0USER1")).toHaveLength(ephemeralsBefore);
    expect(t.emulator.callsTo("chat.postMessage")).toHaveLength(postsBefore);
    expect(model.requests).toHaveLength(2);
  });
});
