/**
 * Preloaded into a Hermes process (`node --import bench/lib/round-trip-stamps.ts`) by
 * bench/turn-timeline.ts: stamps every round trip the process makes (each Postgres statement, each
 * Redis command except the workers' blocking waits, each outgoing HTTP request) and every HTTP
 * request it serves, with monotonic µs (the clock `process.hrtime` gives every process here), and
 * appends them to `$HERMES_ROUND_TRIP_FILE` as lines `start end kind what`. Statements are cut to
 * their first 90 characters; no parameter, body or header is written. A measuring aid only: it
 * wraps `pg.Client#query` and `Redis#sendCommand`, so it is never loaded by Hermes itself.
 */
import { subscribe } from "node:diagnostics_channel";
import { appendFileSync } from "node:fs";
import type { ClientRequest, IncomingMessage } from "node:http";
import { Redis } from "ioredis";
import pg from "pg";

const file = process.env.HERMES_ROUND_TRIP_FILE;
if (!file) throw new Error("round-trip-stamps: set HERMES_ROUND_TRIP_FILE");
const lines: string[] = [];
const nowUs = () => Number(process.hrtime.bigint() / 1000n);
const stamp = (kind: string, what: string, from: number) => lines.push(`${from} ${nowUs()} ${kind} ${what}`);
const flush = () => {
  if (lines.length) appendFileSync(file, `${lines.splice(0).join("\n")}\n`);
};
setInterval(flush, 200).unref();
process.on("exit", flush);

type Callback = (...args: unknown[]) => void;
const query = pg.Client.prototype.query as unknown as (this: pg.Client, ...args: unknown[]) => unknown;
(pg.Client.prototype as unknown as { query: unknown }).query = function (
  this: pg.Client,
  ...args: unknown[]
) {
  const from = nowUs();
  const config = args[0] as string | { text?: string; name?: string } | undefined;
  const text = (typeof config === "string" ? config : (config?.text ?? config?.name ?? "?"))
    .replace(/\s+/g, " ")
    .slice(0, 90);
  const last = args.length - 1;
  if (typeof args[last] === "function") {
    const cb = args[last] as Callback;
    args[last] = (...result: unknown[]) => {
      stamp(result[0] ? "pg!" : "pg", text, from);
      cb(...result);
    };
    return query.apply(this, args);
  }
  const r = query.apply(this, args) as Promise<unknown> | undefined;
  r?.then(
    () => stamp("pg", text, from),
    () => stamp("pg!", text, from),
  );
  return r;
};

/** The workers' waits for the next job: not round trips of a turn. */
const BLOCKING = new Set(["bzpopmin", "bzpopmax", "brpoplpush", "blmove"]);
type RedisCommand = { name: string; args?: unknown[]; promise?: Promise<unknown> };
const sendCommand = Redis.prototype.sendCommand as unknown as (
  this: Redis,
  c: RedisCommand,
  ...rest: unknown[]
) => unknown;
(Redis.prototype as unknown as { sendCommand: unknown }).sendCommand = function (
  this: Redis,
  command: RedisCommand,
  ...rest: unknown[]
) {
  const from = nowUs();
  const r = sendCommand.call(this, command, ...rest);
  const what = command.name === "evalsha" ? `evalsha ${String(command.args?.[0]).slice(0, 8)}` : command.name;
  if (!BLOCKING.has(command.name))
    command.promise?.then(
      () => stamp("redis", what, from),
      () => stamp("redis!", what, from),
    );
  return r;
};

const sent = new WeakMap<ClientRequest, number>();
subscribe("http.client.request.start", (m) => sent.set((m as { request: ClientRequest }).request, nowUs()));
subscribe("http.client.response.finish", (m) => {
  const { request } = m as { request: ClientRequest };
  const from = sent.get(request);
  if (from !== undefined) stamp("http", `${request.method} ${request.path}`, from);
});
const served = new WeakMap<IncomingMessage, number>();
subscribe("http.server.request.start", (m) =>
  served.set((m as { request: IncomingMessage }).request, nowUs()),
);
subscribe("http.server.response.finish", (m) => {
  const { request } = m as { request: IncomingMessage };
  const from = served.get(request);
  if (from !== undefined) stamp("serve", `${request.method} ${request.url}`, from);
});
