/**
 * The floor under an ack figure: the same bursts of signed mentions against a server that answers
 * 200 at once, so what this client, loopback and the machine's current load cost alone can be read
 * beside Hermes' acks.
 */
import { randomUUID } from "node:crypto";
import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { appMentionEvent, eventCallback } from "../../src/sandbox/event-payloads.ts";
import { postAsUser } from "../../src/sandbox/post-as-user.ts";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import { signSlackRequest } from "../../src/sandbox/slack-signature.ts";
import { startSlackEmulator } from "../../test/helpers/slack.ts";
import { CHANNEL } from "./bench-stack.ts";

/** The floor server checks no signature; the requests are signed so they cost what real ones do. */
const SIGNING_SECRET = "ack-floor-secret";

export interface AckFigures {
  events: number;
  p50: number;
  p99: number;
  max: number;
  /** Non-200 answers. */
  failed: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
}

/**
 * Fires `n` signed mentions at once over plain `node:http` (one socket each, as Slack's deliveries
 * come); bodies and signatures are made before the clock starts, so the figure is the delivery alone.
 */
async function burst(url: string, emulator: SlackApiEmulator, n: number, label: string) {
  const { workspace } = emulator;
  const app = {
    teamId: workspace.team.id,
    apiAppId: workspace.bot.appId,
    botUserId: workspace.bot.userId,
    verificationToken: "bench",
  };
  const requests = Array.from({ length: n }, (_, i) => {
    const m = postAsUser(workspace, { channel: CHANNEL, user: "U0USER1", text: `<@U0HERMES> ${label} ${i}` });
    const event = appMentionEvent({
      user: "U0USER1",
      channel: CHANNEL,
      text: m.text,
      ts: m.ts,
      team: app.teamId,
    });
    const body = JSON.stringify(
      eventCallback(app, event, {
        eventId: `Ev${randomUUID().replace(/-/g, "").slice(0, 10).toUpperCase()}`,
        eventTime: Math.floor(Date.now() / 1000),
      }),
    );
    const headers = {
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(body)),
      ...signSlackRequest({ signingSecret: SIGNING_SECRET, body }),
    };
    return { body, headers, ts: m.ts };
  });
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const latencies: number[] = [];
  let failed = 0;
  await Promise.all(
    requests.map(
      (r) =>
        new Promise<void>((resolve, reject) => {
          const t0 = performance.now();
          const req = request(url, { method: "POST", headers: r.headers, agent }, (res) => {
            res.resume();
            res.on("end", () => {
              latencies.push(performance.now() - t0);
              if (res.statusCode !== 200) failed++;
              resolve();
            });
          });
          req.on("error", reject);
          req.end(r.body);
        }),
    ),
  );
  agent.destroy();
  return { latencies, failed, threads: requests.map((r) => r.ts) };
}

function figuresOf(n: number, latencies: number[], failed: number): AckFigures {
  const sorted = [...latencies].sort((a, c) => a - c);
  return {
    events: n,
    p50: Math.round(percentile(sorted, 0.5)),
    p99: Math.round(percentile(sorted, 0.99)),
    max: Math.round(sorted.at(-1) ?? Number.NaN),
    failed,
  };
}

function describe(label: string, f: AckFigures): string {
  return `${label} ${f.events} events: p50 ${f.p50} ms, p99 ${f.p99} ms, max ${f.max} ms, non-200 ${f.failed}`;
}

/**
 * The same bursts against a server that answers 200 at once: what this client, loopback and the
 * machine's current load cost alone, to read the figures against.
 */
export async function measureFloor(sizes: number[], log: (line: string) => void): Promise<AckFigures[]> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const emulator = await startSlackEmulator();
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
    await burst(url, emulator, 5, "warm-up");
    const figures: AckFigures[] = [];
    for (const n of sizes) {
      const b = await burst(url, emulator, n, `floor ${n}`);
      figures.push(figuresOf(n, b.latencies, b.failed));
      log(describe("floor", figures.at(-1)!));
    }
    return figures;
  } finally {
    server.closeAllConnections();
    server.close();
    await emulator.stop();
  }
}
