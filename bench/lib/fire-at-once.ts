/**
 * The burst client of `signed-burst.ts`, as a process of its own: reads `{ url, requests }` (bodies
 * and signed headers, made by the parent) as JSON on stdin, prints "firing", sends every request at
 * once over plain `node:http`, one socket each (as Slack delivers events), and prints each one's
 * `{ latencies, statuses }` as one JSON line.
 */
import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";

/** Fires every request at once, one socket each; each one's ms from being sent to its answer's end. */
async function fire(
  url: string,
  prepared: Array<{ body: string; headers: Record<string, string> }>,
): Promise<{ latencies: number[]; statuses: number[] }> {
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

let input = "";
process.stdin.setEncoding("utf8");
for await (const chunk of process.stdin) input += chunk;
const { url, requests } = JSON.parse(input) as {
  url: string;
  requests: Array<{ body: string; headers: Record<string, string> }>;
};
process.stdout.write("firing\n");
const result = await fire(url, requests);
process.stdout.write(`${JSON.stringify(result)}\n`);
