/**
 * The floor under an ack figure: the same bursts of signed mentions against a server that answers
 * 200 at once, so what this client, loopback and the machine's current load cost alone can be read
 * beside Hermes' acks.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import { startSlackEmulator } from "../../test/helpers/slack.ts";
import { CHANNEL } from "./bench-stack.ts";
import { type BurstClient, fireAtOnce, prepareMentions } from "./signed-burst.ts";
import { percentile } from "./stats.ts";

/** The floor server checks no signature; the requests are signed so they cost what real ones do. */
const SIGNING_SECRET = "ack-floor-secret";

/** Figures in ms to 0.1, percentiles nearest-rank as `stats.ts` computes Hermes' ack figures. */
export interface AckFigures {
  events: number;
  p50: number;
  p99: number;
  max: number;
  /** Non-200 answers. */
  failed: number;
}

/** A burst of `n` signed mentions against `url` (see `signed-burst.ts`). */
async function burst(url: string, emulator: SlackApiEmulator, n: number, label: string, client: BurstClient) {
  const prepared = prepareMentions(emulator.workspace, {
    signingSecret: SIGNING_SECRET,
    channel: CHANNEL,
    user: "U0USER1",
    texts: Array.from({ length: n }, (_, i) => `<@U0HERMES> ${label} ${i}`),
  });
  const { latencies, statuses } = await fireAtOnce(url, prepared, undefined, client);
  return { latencies, failed: statuses.filter((s) => s !== 200).length };
}

function figuresOf(n: number, latencies: number[], failed: number): AckFigures {
  const sorted = [...latencies].sort((a, c) => a - c);
  const tenth = (ms: number) => Math.round(ms * 10) / 10;
  return {
    events: n,
    p50: tenth(percentile(sorted, 0.5)),
    p99: tenth(percentile(sorted, 0.99)),
    max: tenth(sorted.at(-1) ?? Number.NaN),
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
export async function measureFloor(
  sizes: number[],
  log: (line: string) => void,
  client: BurstClient = "raw",
): Promise<AckFigures[]> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const emulator = await startSlackEmulator();
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
    await burst(url, emulator, 5, "warm-up", client);
    const figures: AckFigures[] = [];
    for (const n of sizes) {
      const b = await burst(url, emulator, n, `floor ${n}`, client);
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
