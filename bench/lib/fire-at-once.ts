/**
 * The burst client of `signed-burst.ts`, as a process of its own that serves every burst of a
 * benchmark run: it first warms up (bursts against a server of its own, below), prints "ready", then
 * for each line of `{ url, requests, client }` on stdin (bodies and signed headers, made by the
 * parent) prints "firing", sends every request at once, one socket each (as Slack delivers events),
 * and prints that burst's `{ latencies, statuses }` as one JSON line. It exits when stdin ends.
 *
 * Warm, because its clocks are only as good as its own speed: a fresh Node process making 200
 * sockets runs that code cold, and its first burst's answers waited for it. Against a server that
 * answers at once, a fresh process's first burst of 200 measured p99 17–75 ms and later bursts of the
 * same process 8–48 (docs/performance.md); the server's figure is the second kind.
 *
 * Two clients:
 * - `raw` (the default): each request's bytes are built before the clock starts and written on a
 *   socket of its own as soon as that socket connects; its latency runs from that write to the end of
 *   its answer. The client's own work per request is a write and a short parse, so its clocks measure
 *   the server, not this process's event loop.
 * - `http`: `node:http`'s client, one request per agent-less socket. Its clock starts when the
 *   request object is made; Node defers every connect to an IP address until the loop that made the
 *   200 requests has ended, so each latency also holds the making of the requests after it (~20 ms
 *   for 200 here), and each answer waits for the client's parsing of the ones before it. Kept to
 *   compare with figures measured before the raw client.
 */
import { Agent, request } from "node:http";
import { type AddressInfo, connect, createServer } from "node:net";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";

type Prepared = Array<{ body: string; headers: Record<string, string> }>;
interface Fired {
  latencies: number[];
  statuses: number[];
}

/** `node:http`'s client: each one's ms from its request object being made to its answer's end. */
async function fireHttp(url: string, prepared: Prepared): Promise<Fired> {
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const latencies: number[] = new Array(prepared.length);
  const statuses: number[] = new Array(prepared.length);
  try {
    await Promise.all(
      prepared.map(
        (r, i) =>
          new Promise<void>((resolve, reject) => {
            const t0 = performance.now();
            const req = request(url, { method: "POST", headers: r.headers, agent }, (res) => {
              res.resume();
              res.on("end", () => {
                latencies[i] = performance.now() - t0;
                statuses[i] = res.statusCode ?? 0;
                resolve();
              });
            });
            req.on("error", reject);
            req.end(r.body);
          }),
      ),
    );
  } finally {
    agent.destroy();
  }
  return { latencies, statuses };
}

/** One request's bytes: the prepared headers (content-length among them), `Connection: close`. */
function requestBytes(target: URL, r: Prepared[number]): Buffer {
  const lines = [`POST ${target.pathname}${target.search} HTTP/1.1`, `host: ${target.host}`];
  for (const [k, v] of Object.entries(r.headers)) lines.push(`${k}: ${v}`);
  lines.push("connection: close", "", "");
  return Buffer.concat([Buffer.from(lines.join("\r\n"), "latin1"), Buffer.from(r.body, "utf8")]);
}

/**
 * Where an HTTP/1.1 answer in `data` ends, once it is complete: its status, or undefined while more
 * is to come. Knows what a receiver sends here: a body sized by content-length, or a chunked one.
 */
function completeAnswer(data: Buffer): number | undefined {
  const headEnd = data.indexOf("\r\n\r\n");
  if (headEnd < 0) return undefined;
  const head = data.subarray(0, headEnd).toString("latin1");
  const status = Number(head.slice(9, 12));
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (length) return data.length - (headEnd + 4) >= Number(length[1]) ? status : undefined;
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head))
    return data.subarray(headEnd + 4).includes("0\r\n\r\n") ? status : undefined;
  return undefined; // read to the end of the connection
}

/** Raw sockets: each one's ms from its request's write (on connect) to its answer's last byte. */
async function fireRaw(url: string, prepared: Prepared): Promise<Fired> {
  const target = new URL(url);
  const bytes = prepared.map((r) => requestBytes(target, r));
  const latencies: number[] = new Array(prepared.length);
  const statuses: number[] = new Array(prepared.length);
  await Promise.all(
    bytes.map(
      (b, i) =>
        new Promise<void>((resolve, reject) => {
          let t0 = 0;
          let data: Buffer = Buffer.alloc(0);
          let done = false;
          const finish = (status: number) => {
            if (done) return;
            done = true;
            latencies[i] = performance.now() - t0;
            statuses[i] = status;
            socket.destroy();
            resolve();
          };
          const socket = connect({ host: target.hostname, port: Number(target.port), noDelay: true }, () => {
            t0 = performance.now();
            socket.write(b);
          });
          socket.on("data", (chunk: Buffer) => {
            data = data.length === 0 ? chunk : Buffer.concat([data, chunk]);
            const status = completeAnswer(data);
            if (status !== undefined) finish(status);
          });
          socket.on("end", () => finish(Number(data.subarray(9, 12).toString("latin1")) || 0));
          socket.on("error", (err) => (done ? undefined : reject(err)));
        }),
    ),
  );
  return { latencies, statuses };
}

/** Bursts of this size against a server of this process's own, until the client's code is warm. */
const WARM_UP = { bursts: 3, size: 200 };

async function warmUp(): Promise<void> {
  const server = createServer((socket) => {
    socket.on("data", () => socket.end("HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"));
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
    const body = JSON.stringify({ type: "event_callback", warm: "x".repeat(1000) });
    const requests = Array.from({ length: WARM_UP.size }, () => ({
      body,
      headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) },
    }));
    for (let i = 0; i < WARM_UP.bursts; i++) await fireRaw(url, requests);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

await warmUp();
process.stdout.write("ready\n");
for await (const line of createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY })) {
  if (!line.trim()) continue;
  const { url, requests, client } = JSON.parse(line) as {
    url: string;
    requests: Prepared;
    client?: "raw" | "http";
  };
  process.stdout.write("firing\n");
  const result = client === "http" ? await fireHttp(url, requests) : await fireRaw(url, requests);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
