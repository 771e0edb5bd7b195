/**
 * `npm run bench:start [-- --runs N]`: seconds from spawning `npm start` (the embedded default: sandbox
 * workspace, PGlite, nothing configured) to `/healthz` answering. Each run gets a fresh data dir (a
 * fresh PGlite: create and migrate), then one warm start reuses the last one. This is where start-up
 * time is tracked; tests only check that it starts (a timed test fails whenever the machine is busy).
 * Run it on an otherwise idle machine; it prints the figures, it asserts nothing.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";

const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 3;
/** Only bounds a hang. */
const CEILING_MS = 180_000;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** One `npm start` in its own process group; seconds to /healthz; the group is killed afterwards. */
async function startOnce(dataDir: string): Promise<number> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn("npm", ["start"], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      HERMES_DATA_DIR: dataDir,
      HERMES_LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "ignore", "pipe"],
    detached: true,
  });
  let errors = "";
  child.stderr.on("data", (d: Buffer) => {
    errors += d.toString();
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  try {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`)
        .then((r) => r.ok)
        .catch(() => false);
      if (ok) return (performance.now() - t0) / 1000;
      if (child.exitCode !== null) throw new Error(`npm start exited (${child.exitCode}):\n${errors}`);
      if (performance.now() - t0 > CEILING_MS) throw new Error(`no /healthz after ${CEILING_MS} ms`);
      await sleep(50);
    }
  } finally {
    if (child.pid) {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
      await Promise.race([exited, sleep(15_000)]);
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // gone
      }
    }
  }
}

const fresh: number[] = [];
let last: string | undefined;
try {
  for (let i = 0; i < RUNS; i++) {
    if (last) rmSync(last, { recursive: true, force: true });
    last = mkdtempSync(join(tmpdir(), "hermes-bench-start-"));
    fresh.push(await startOnce(last));
    console.log(`fresh start ${i + 1}/${RUNS}: ${fresh.at(-1)?.toFixed(1)} s to /healthz`);
  }
  const warm = last ? await startOnce(last) : Number.NaN;
  const sorted = [...fresh].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  console.log(
    `npm start → /healthz: fresh data dir median ${median.toFixed(1)} s ` +
      `(min ${sorted[0]?.toFixed(1)}, max ${sorted.at(-1)?.toFixed(1)}, ${RUNS} runs); ` +
      `warm ${warm.toFixed(1)} s`,
  );
} finally {
  if (last) rmSync(last, { recursive: true, force: true });
}
