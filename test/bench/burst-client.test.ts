import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  type BurstClient,
  closeBurstClient,
  fireAtOnce,
  type PreparedMention,
} from "../../bench/lib/signed-burst.ts";

/**
 * The benchmark's burst client reads answers off raw sockets: each status and latency must be the
 * answer's, whatever framing the server chose, or the ack figures mean nothing.
 */
let server: Server | undefined;
// One burst client serves every burst (both kinds, one after the other); it ends here.
afterAll(closeBurstClient);
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const s = createServer(handler);
  server = s;
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}/slack/events?x=1`;
}

function requests(n: number): PreparedMention[] {
  return Array.from({ length: n }, (_, i) => {
    const body = JSON.stringify({ i, text: "héllo" });
    return {
      body,
      headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) },
      ts: String(i),
    };
  });
}

describe.each<BurstClient>(["raw", "http"])("burst client %s", (client) => {
  it("reads each answer's status, whatever its framing, after the server got the whole request", async () => {
    const seen: Array<{ url: string; body: string }> = [];
    const url = await serve((req, res) => {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (c: string) => {
        body += c;
      });
      req.on("end", () => {
        seen.push({ url: req.url ?? "", body });
        const { i } = JSON.parse(body) as { i: number };
        // Answers on a timer, so a latency that did not wait for its answer would show below it.
        setTimeout(() => {
          if (i % 3 === 0) {
            res.writeHead(200, { "content-length": "2" });
            res.end("ok");
          } else if (i % 3 === 1) {
            res.writeHead(404, { "transfer-encoding": "chunked" });
            res.write("not");
            res.end(" found");
          } else {
            res.writeHead(500);
            res.end();
          }
        }, 30);
      });
    });
    const prepared = requests(30);
    const { latencies, statuses } = await fireAtOnce(url, prepared, undefined, client);
    expect(statuses).toEqual(prepared.map((_, i) => [200, 404, 500][i % 3]));
    for (const ms of latencies) expect(ms).toBeGreaterThanOrEqual(29);
    expect(seen.map((s) => s.url)).toEqual(prepared.map(() => "/slack/events?x=1"));
    expect(seen.map((s) => s.body).sort()).toEqual(prepared.map((r) => r.body).sort());
  });
});
