import { randomUUID } from "node:crypto";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type WebSocket, WebSocketServer } from "ws";
import { type RunningHermes, startHermes } from "../../src/boot/start-hermes.ts";
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { appMentionEvent, eventCallback } from "../../src/sandbox/event-payloads.ts";
import { postAsUser } from "../../src/sandbox/post-as-user.ts";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import { waitFor } from "../helpers/hermes-harness.ts";
import { tempDir } from "../helpers/hermes-process.ts";
import { claimWaitsForLock, createTestDatabase, type TestDatabase, testPool } from "../helpers/pg.ts";
import { answer, ScriptedModelServer } from "../helpers/scripted-model.ts";
import { startSlackEmulator } from "../helpers/slack.ts";

const CHANNEL = "C0OPS";
const BURST = 40;

/**
 * Slack's side of Socket Mode on loopback: `apps.connections.open` hands out a WebSocket URL on this
 * server (which says `hello` and then delivers envelopes), every other Web API call goes on to the
 * emulator. The envelopes' acks (`{envelope_id}`) come back over the same socket.
 */
async function startSocketGateway(emulator: SlackApiEmulator) {
  const upstream = new URL(emulator.url);
  const sockets: WebSocket[] = [];
  const acks = new Map<string, () => void>();
  const server: Server = createServer((req, res) => {
    if (req.url?.endsWith("/apps.connections.open")) {
      req.resume();
      const { port } = server.address() as AddressInfo;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok: true, url: `ws://127.0.0.1:${port}/link` }));
      return;
    }
    const forward = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        // The emulator only answers requests addressed to itself.
        headers: { ...req.headers, host: upstream.host },
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    req.pipe(forward);
  });
  const wss = new WebSocketServer({ server, path: "/link" });
  wss.on("connection", (ws) => {
    sockets.push(ws);
    ws.on("message", (data) => {
      const { envelope_id } = JSON.parse(String(data)) as { envelope_id?: string };
      if (envelope_id) acks.get(envelope_id)?.();
    });
    ws.send(JSON.stringify({ type: "hello", num_connections: 1, connection_info: { app_id: "A0HERMES" } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`,
    connected: () => sockets.some((s) => s.readyState === s.OPEN),
    /**
     * A ping and its pong over the open socket: whatever the client sent before the ping arrived
     * (an ack) has arrived here by the time this resolves (a WebSocket is one ordered stream).
     */
    roundTrip(): Promise<void> {
      const open = sockets.find((s) => s.readyState === s.OPEN);
      if (!open) throw new Error("no Socket Mode connection");
      return new Promise((resolve) => {
        open.once("pong", () => resolve());
        open.ping();
      });
    },
    /** Delivers `payload` in an `events_api` envelope; resolves when its ack comes back. */
    deliver(payload: Record<string, unknown>): Promise<void> {
      const envelopeId = randomUUID();
      const acked = new Promise<void>((resolve) => acks.set(envelopeId, resolve));
      const open = sockets.find((s) => s.readyState === s.OPEN);
      if (!open) throw new Error("no Socket Mode connection");
      open.send(
        JSON.stringify({
          envelope_id: envelopeId,
          type: "events_api",
          payload,
          accepts_response_payload: false,
          retry_attempt: 0,
          retry_reason: "",
        }),
      );
      return acked;
    },
    async stop() {
      for (const s of sockets) s.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Socket Mode keeps the same rule as HTTP: an event's ack (its envelope id, sent back over the
 * socket) goes out only once the event is recorded, and the turn is answered after it.
 */
describe("Socket Mode acks", () => {
  const model = new ScriptedModelServer();
  let emulator: SlackApiEmulator;
  let gateway: Awaited<ReturnType<typeof startSocketGateway>>;
  let db: TestDatabase;
  let dir: ReturnType<typeof tempDir>;
  let hermes: RunningHermes | undefined;
  let direct: pg.Pool;

  beforeAll(async () => {
    await model.start();
    emulator = await startSlackEmulator();
    gateway = await startSocketGateway(emulator);
    db = await createTestDatabase();
    dir = tempDir("socket-acks");
    direct = testPool({ connectionString: db.url, max: 2 });
  });
  afterAll(async () => {
    await hermes?.stop();
    await direct?.end();
    await gateway?.stop();
    await emulator?.stop();
    await model.stop();
    await db?.drop();
    dir?.remove();
  });

  it(`${BURST} events at once: each acked over the socket once its row is written, then answered`, async () => {
    const env = {
      SLACK_BOT_TOKEN: "xoxb-test",
      SLACK_APP_TOKEN: "xapp-1-test",
      SLACK_API_URL: gateway.url,
      PORT: "0",
      DATABASE_URL: db.url,
      HERMES_AUDIT_KEY: "socket-acks-test-audit-key-32-chars!!",
      HERMES_DATA_DIR: dir.path,
      HERMES_LOG_LEVEL: "silent",
      OPENAI_BASE_URL: model.baseURL,
      HERMES_MODEL: "scripted",
      OPENAI_API_KEY: "k",
      HERMES_MODEL_MAX_RETRIES: "0",
      // The emulator enforces no rate limits here: this test is about acks, not Slack's pacing (at
      // Slack's real rates, 40 answers in one channel take ~40 s; test/slack/rate-limit covers that).
      HERMES_SLACK_RATE_SCALE: "1000",
    };
    hermes = await startHermes({ config: loadConfig(env), logger: silentLogger(), rawEnv: env });
    await waitFor(() => gateway.connected(), 30_000, "the Socket Mode connection");

    model.fallback = answer("Answered over Socket Mode.");
    const { workspace } = emulator;
    const app = {
      teamId: workspace.team.id,
      apiAppId: workspace.bot.appId,
      botUserId: workspace.bot.userId,
      verificationToken: "x",
    };
    const rowOf = async (eventId: string) =>
      (
        await direct.query<{ status: string; has_job: boolean }>(
          "select status, payload is not null as has_job from slack_events where event_id = $1",
          [eventId],
        )
      ).rows;
    // A burst over the one socket: each ack must find its event recorded.
    const delivered = await Promise.all(
      Array.from({ length: BURST }, async (_, i) => {
        const message = postAsUser(workspace, {
          user: "U0USER1",
          channel: CHANNEL,
          text: `<@U0HERMES> socket ${i}`,
        });
        const eventId = `Ev${randomUUID().replace(/-/g, "").slice(0, 10).toUpperCase()}`;
        const payload = eventCallback(
          app,
          appMentionEvent({
            user: "U0USER1",
            channel: CHANNEL,
            text: message.text,
            ts: message.ts,
            team: app.teamId,
          }),
          { eventId, eventTime: Math.floor(Date.now() / 1000) },
        );
        await gateway.deliver(payload);
        return { ts: message.ts, row: await rowOf(eventId) };
      }),
    );
    expect(delivered.filter((d) => d.row.length !== 1 || !d.row[0]!.has_job)).toEqual([]);

    await waitFor(
      () =>
        delivered.every(({ ts }) =>
          (workspace.replies(CHANNEL, ts) ?? []).some((m) => m.text === "Answered over Socket Mode."),
        ),
      120_000,
      "an answer in every thread",
    );
    // An event Hermes ignores (the bot's own message) is acked all the same.
    const own = eventCallback(
      {
        teamId: workspace.team.id,
        apiAppId: workspace.bot.appId,
        botUserId: workspace.bot.userId,
        verificationToken: "x",
      },
      {
        type: "message",
        subtype: "bot_message",
        bot_id: workspace.bot.botId,
        channel: CHANNEL,
        text: "hi",
        ts: "1.000001",
      },
      { eventId: "EvOWN", eventTime: Math.floor(Date.now() / 1000) },
    );
    await gateway.deliver(own);
    expect(model.requests).toHaveLength(BURST);
  }, 120_000);

  it("while the event cannot be written (its table is locked), no ack goes out; once written, it does", async () => {
    const { workspace } = emulator;
    const app = {
      teamId: workspace.team.id,
      apiAppId: workspace.bot.appId,
      botUserId: workspace.bot.userId,
      verificationToken: "x",
    };
    model.fallback = answer("Answered after the wait.");
    const locker = await direct.connect();
    try {
      await locker.query("begin");
      // Blocks every INSERT into slack_events until the transaction ends (reads go on).
      await locker.query("lock table slack_events in share mode");
      const message = postAsUser(workspace, {
        user: "U0USER1",
        channel: CHANNEL,
        text: "<@U0HERMES> locked",
      });
      const eventId = "EvLOCKED01";
      let acked = false;
      const ack = gateway
        .deliver(
          eventCallback(
            app,
            appMentionEvent({
              user: "U0USER1",
              channel: CHANNEL,
              text: message.text,
              ts: message.ts,
              team: app.teamId,
            }),
            { eventId, eventTime: Math.floor(Date.now() / 1000) },
          ),
        )
        .then(() => {
          acked = true;
        });
      // The claim is there, waiting for the lock…
      await waitFor(() => claimWaitsForLock(direct), 30_000, "the claim waiting for the lock");
      // …and no ack has been sent: anything sent before this ping would have arrived before its pong.
      await gateway.roundTrip();
      expect(acked).toBe(false);
      await locker.query("commit");
      await ack;
      expect((await direct.query("select 1 from slack_events where event_id = $1", [eventId])).rowCount).toBe(
        1,
      );
      await waitFor(
        () =>
          (workspace.replies(CHANNEL, message.ts) ?? []).some((m) => m.text === "Answered after the wait."),
        60_000,
        "the answer",
      );
    } finally {
      await locker.query("rollback").catch(() => undefined);
      locker.release();
    }
  }, 120_000);
});
