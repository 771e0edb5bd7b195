/**
 * The floor of a turn's CPU: a process that makes the round trips one Hermes turn makes, with the
 * libraries Hermes makes them with, and nothing else. `POST /turn` (signed as Slack signs events):
 * the signature checked, then `--pg` Postgres statements (pg, named prepared statements, one pool),
 * `--redis` Redis commands (ioredis), two model calls (undici, JSON in and out) and two Slack calls
 * (form-encoded, as the Web API client sends them); answered once all are done. Prints `ready <port>`.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Redis } from "ioredis";
import pg from "pg";
import { Agent, request } from "undici";

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const PG_STATEMENTS = Number(arg("--pg") ?? 18);
const REDIS_COMMANDS = Number(arg("--redis") ?? 11);
const { DATABASE_URL, REDIS_URL, MODEL_URL, SLACK_API_URL, SIGNING_SECRET } = process.env;
if (!DATABASE_URL || !REDIS_URL || !MODEL_URL || !SLACK_API_URL || !SIGNING_SECRET)
  throw new Error(
    "floor-turn-process needs DATABASE_URL, REDIS_URL, MODEL_URL, SLACK_API_URL, SIGNING_SECRET",
  );

const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 5 });
const redis = new Redis(REDIS_URL, { lazyConnect: false });
const agent = new Agent({ keepAliveTimeout: 30_000 });
let seq = 0;

async function modelCall(turn: number): Promise<unknown> {
  const res = await request(`${MODEL_URL}/chat/completions`, {
    method: "POST",
    dispatcher: agent,
    headers: { "content-type": "application/json", authorization: "Bearer k" },
    body: JSON.stringify({
      model: "scripted",
      messages: [
        { role: "system", content: "You are Hermes, a helpful assistant for the team. ".repeat(20) },
        { role: "user", content: `bench floor-${turn} plain` },
      ],
      tools: [{ type: "function", function: { name: "create_ticket", parameters: { type: "object" } } }],
    }),
  });
  return res.body.json();
}

async function slackCall(method: string, args: Record<string, string>): Promise<unknown> {
  const res = await request(`${SLACK_API_URL}${method}`, {
    method: "POST",
    dispatcher: agent,
    headers: { "content-type": "application/x-www-form-urlencoded", authorization: "Bearer xoxb-floor" },
    body: new URLSearchParams(args).toString(),
  });
  return res.body.json();
}

async function turn(event: { channel: string; ts: string }): Promise<void> {
  const n = ++seq;
  // The statements a turn makes in order, each waited for, as a turn's steps mostly are.
  for (let i = 0; i < PG_STATEMENTS; i++)
    await pool.query({ name: `floor_${i % 6}`, text: `SELECT $1::int + ${i % 6} AS v`, values: [n] });
  for (let i = 0; i < REDIS_COMMANDS; i++) await redis.set(`floor:${i}`, String(n), "EX", 60);
  await slackCall("chat.postMessage", {
    channel: event.channel,
    thread_ts: event.ts,
    text: "Working on it…",
  });
  await modelCall(n);
  await modelCall(n);
  await slackCall("chat.postMessage", { channel: event.channel, thread_ts: event.ts, text: `answer ${n}` });
}

function signed(headers: Record<string, string | string[] | undefined>, body: string): boolean {
  const ts = String(headers["x-slack-request-timestamp"] ?? "");
  const given = Buffer.from(String(headers["x-slack-signature"] ?? ""));
  const want = Buffer.from(
    `v0=${createHmac("sha256", SIGNING_SECRET ?? "")
      .update(`v0:${ts}:${body}`)
      .digest("hex")}`,
  );
  return given.length === want.length && timingSafeEqual(given, want);
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks).toString("utf8");
    if (!signed(req.headers, body)) {
      res.writeHead(401).end();
      return;
    }
    const event = (JSON.parse(body) as { event: { channel: string; ts: string } }).event;
    turn(event).then(
      () => res.writeHead(200).end(),
      (err: unknown) => res.writeHead(500).end(String(err)),
    );
  });
});
server.listen(0, "127.0.0.1", () => {
  console.log(`ready ${(server.address() as AddressInfo).port}`);
});
process.on("SIGTERM", () => {
  server.close();
  void Promise.allSettled([pool.end(), redis.quit(), agent.close()]).then(() => process.exit(0));
});
