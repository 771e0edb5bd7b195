/**
 * `npm run bench [-- --quick]`: every benchmark in one run (so ratios hold on a noisy
 * machine), on loopback with a scripted model server, the Slack Web API emulator, Postgres and Redis:
 *   1. runtime overhead per turn vs a bare `openai` SDK loop and vs `@openai/agents`
 *   2. end to end (signed event in → answer posted): Hermes' own time per model step, CPU per turn;
 *      Postgres statements per turn, counted by a proxy in front of Postgres
 *   3. ack latency under bursts of concurrent events (up to 200), over the floor measured beside it
 *   4. throughput with 1, 2 and 4 worker processes (model 50 ms per call, and 1 s), scaling at 4
 *   5. memory and start-up: idle RSS per process, RSS with 1,000 idle sessions and 100 paused runs,
 *      time to /healthz; a 200-turn thread's prompt size and per-turn cost
 *   6. audit rows/s with the hash chain (1/4/16 writers), approval decide p99
 *   7. one busy channel vs the same burst spread over 20, at Slack's published rates
 * Prints progress to stderr, then one table and, as its last line, the headline figures.
 * Every benchmark stops its processes and drops its databases, Redis keys and folders when it ends.
 */
import { cpus, loadavg } from "node:os";
import { measureAckBursts } from "./ack-burst.ts";
import { FULL, measureAuditSuite, QUICK } from "./audit-suite.ts";
import { measureE2E } from "./e2e-turn.ts";
import type { AckFigures } from "./lib/ack-floor.ts";
import { measureFloor } from "./lib/ack-floor.ts";
import { type BenchStack, createBenchStack } from "./lib/bench-stack.ts";
import { RECEIVER_FLAG } from "./lib/hermes-processes.ts";
import { formatTable, type ReportRow } from "./lib/report-table.ts";
import { stallsIn, startStallMeter } from "./lib/stall-meter.ts";
import { fmt, percentile } from "./lib/stats.ts";
import { measureEmbeddedStart, measureIdleSessions, measureLongThread, settledRssMb } from "./memory.ts";
import { measureOneChannel } from "./one-channel.ts";
import { measurePgStatements } from "./pg-statements.ts";
import { measureRuntimeOverhead } from "./runtime-overhead.ts";
import { measureThroughput, scalingEfficiency } from "./throughput.ts";

/** How long the process is left alone before the quiet-spell burst. */
const QUIET_MS = 20_000;
/** Statement texts listed under the statements per turn, and the characters shown of each. */
const TOP_STATEMENTS = 15;
const STATEMENT_CHARS = 90;

const quick = process.argv.includes("--quick");
const LARGER_SEMI_SPACE = "--max-semi-space-size=16";
const rows: ReportRow[] = [];
const head: Record<string, string> = {};
const add = (bench: string, measure: string, value: string, target?: string) =>
  rows.push({ bench, measure, value, ...(target ? { target } : {}) });
const pct = (share: number) => `${fmt(share * 100, 0)}%`;
const progress = (text: string) => process.stderr.write(`[bench] ${text}\n`);

async function runtimeOverhead() {
  progress("1/7 runtime overhead");
  const r = await measureRuntimeOverhead({ turns: quick ? 100 : 1000, warmup: quick ? 20 : 100 });
  const b = "1 runtime";
  for (const [name, s] of Object.entries(r.perTurnMs)) {
    const gc = r.gcPerTurnMs[name as keyof typeof r.gcPerTurnMs];
    add(
      b,
      `${name} ms/turn (mean: turn + collecting its garbage)`,
      `${fmt(s.mean + gc, 2)} (${fmt(s.mean, 2)} + ${fmt(gc, 2)})`,
    );
  }
  add(b, "hermes / bare openai loop", fmt(r.vsBare, 2), "≤ 1.3");
  add(b, `hermes / @openai/agents ${r.openaiAgentsVersion}`, fmt(r.vsOpenaiAgents, 2), "≤ 0.7");
  add(
    b,
    "same, trace off: / bare, / agents",
    `${fmt(r.noTraceVsBare, 2)}, ${fmt(r.noTraceVsOpenaiAgents, 2)}`,
  );
  head.overhead_vs_bare = fmt(r.vsBare, 2);
  head.overhead_vs_openai_agents = fmt(r.vsOpenaiAgents, 2);
}

/** 2, 3 and 5 on one `npm start` process (receiver + worker) with Postgres and Redis. */
async function singleProcess() {
  const stack = await createBenchStack();
  try {
    progress("2,3,5 one process: start on a fresh database");
    const fresh = await stack.start("all");
    add("5 memory", "healthz after start, Postgres, fresh db (s)", fmt(fresh.readyMs / 1000, 2));
    const rssFresh = await settledRssMb(fresh);
    add("5 memory", "idle RSS, npm start, fresh db (MB)", fmt(rssFresh, 0));

    progress("2/7 end to end");
    // Steady state: a process's first ~100 turns run while V8 still compiles the hot paths (JIT tiers).
    const meter = await startStallMeter();
    const e2e = await measureE2E(stack, fresh, {
      turns: quick ? 60 : 200,
      warmup: quick ? 20 : 100,
      modelDelayMs: 50,
    });
    const stalls = await meter.stop();
    const machineStalls = stallsIn(stalls, e2e.windowUs);
    // The same figure over the turns no stall of the bystander's overlapped: beside the headline
    // (which counts every turn), to tell the machine's stalls from Hermes' own tail.
    const calm = e2e.perTurn.filter((t) => stallsIn(stalls, t).over20 === 0).map((t) => t.ownPerStepMs);
    const b2 = "2 end to end";
    add(b2, `turns (one tool call, model ${e2e.modelDelayMs} ms/call)`, String(e2e.turns));
    add(b2, "event in → answer posted p50 / p99 (ms)", `${fmt(e2e.totalMs.p50)} / ${fmt(e2e.totalMs.p99)}`);
    add(b2, "own time per model step p50 (ms)", fmt(e2e.ownPerStepMs.p50));
    add(b2, "own time per model step p99 (ms)", fmt(e2e.ownPerStepMs.p99));
    add(
      b2,
      `  model time per call as its server held it: p50 / p99 (ms; nominal ${e2e.modelDelayMs})`,
      `${fmt(e2e.modelHeldPerCallMs.p50, 2)} / ${fmt(e2e.modelHeldPerCallMs.p99, 2)}`,
    );
    add(
      b2,
      `  own time with the nominal ${e2e.modelDelayMs} ms taken off instead: p50 / p99 (ms)`,
      `${fmt(e2e.ownPerStepNominalMs.p50)} / ${fmt(e2e.ownPerStepNominalMs.p99)}`,
    );
    add(b2, "CPU per turn, whole Hermes process, user + system (ms)", fmt(e2e.cpuMsPerTurn), "≤ 10");
    add(b2, "  of which kernel (system) (ms)", fmt(e2e.systemMsPerTurn));
    add(
      b2,
      "  the benchmark process's own GC meanwhile: pauses, > 10 ms, max, total (ms)",
      `${e2e.driverGc.pauses}, ${e2e.driverGc.over10}, ${fmt(e2e.driverGc.maxMs)}, ${fmt(e2e.driverGc.totalMs)}`,
    );
    add(
      b2,
      "  a bystander's stalls meanwhile: > 20 ms, > 50 ms, max (ms)",
      `${machineStalls.over20}, ${machineStalls.over50}, ${fmt(machineStalls.maxMs)}`,
    );
    add(
      b2,
      "  own time p99 over the turns no such stall overlapped (ms; turns)",
      calm.length ? `${fmt(percentile(calm, 0.99))} (${calm.length})` : "none",
    );
    head.cpu_ms_per_turn = fmt(e2e.cpuMsPerTurn);

    progress("5/7 a long thread");
    const thread = await measureLongThread(stack, fresh, {
      turns: quick ? 100 : 200,
      windowSize: quick ? 10 : 20,
    });
    const b5 = "5 memory";
    add(
      b5,
      `${thread.turns}-turn thread: largest prompt (tokens)`,
      String(thread.maxPromptTokens),
      `≤ budget ${thread.budgetTokens}`,
    );
    for (const w of thread.windows) {
      add(
        b5,
        `  turns ${w.from}-${w.to}: e2e p50 ms, CPU ms/turn, prompt tokens`,
        `${fmt(w.e2eP50Ms)}, ${fmt(w.cpuMsPerTurn)}, ${w.promptTokens}`,
      );
    }
    add(b5, "  summaries of trimmed history", String(thread.summaries));

    progress("3/7 ack bursts");
    const burstMeter = await startStallMeter();
    const bursts = await measureAckBursts(stack, fresh, {
      sizes: quick ? [50] : [50, 100],
      modelDelayMs: 50,
    });
    // The burst of 200 between two floor bursts of 200 (a server answering at once, the same client):
    // what the client, loopback and this machine's load cost alone, measured just before and after.
    const [floorBefore] = await measureFloor([200], () => undefined);
    bursts.push(...(await measureAckBursts(stack, fresh, { sizes: [200], modelDelayMs: 50 })));
    const [floorAfter] = await measureFloor([200], () => undefined);
    const burstStalls = await burstMeter.stop();
    for (const r of bursts) {
      add(
        "3 acks",
        `burst of ${r.size}, npm start: ack p50 / p99 / max (ms)`,
        `${fmt(r.ackMs.p50)} / ${fmt(r.ackMs.p99)} / ${fmt(r.ackMs.max)}`,
      );
      add("3 acks", `  all ${r.size} answered after (s)`, fmt(r.allAnsweredMs / 1000, 1));
      // A late tick of a bystander's 10 ms timer while the acks went out: the machine's share of the
      // figure (with Hermes, the client and Postgres busy on two cores, a few ms late is normal).
      const s = stallsIn(burstStalls, r.acksUs);
      add(
        "3 acks",
        "  a bystander's stalls during those acks: > 20 ms, max (ms)",
        `${s.over20}, ${fmt(s.maxMs)}`,
      );
    }
    const floorLine = (f: AckFigures) => `${fmt(f.p50)} / ${fmt(f.p99)} / ${fmt(f.max)}`;
    add("3 acks", "  floor just before the 200: p50 / p99 / max (ms)", floorLine(floorBefore!));
    add("3 acks", "  floor just after the 200: p50 / p99 / max (ms)", floorLine(floorAfter!));
    const floorP99 = (floorBefore!.p99 + floorAfter!.p99) / 2;
    const ackRatio = bursts.at(-1)!.ackMs.p99 / floorP99;
    add("3 acks", "burst of 200: ack p99 / the floors' mean p99", fmt(ackRatio, 2), "≤ 2.0");
    head.ack_p99_vs_floor = fmt(ackRatio, 2);
    if (!quick) {
      // The same burst through node:http's client (its clocks also hold its own request building
      // and parsing), beside the raw client's figure (bench/lib/fire-at-once.ts).
      const [old] = await measureAckBursts(stack, fresh, { sizes: [200], modelDelayMs: 50, client: "http" });
      const [oldFloor] = await measureFloor([200], () => undefined, "http");
      add(
        "3 acks",
        "  200 with the node:http client: ack p99, floor p99 (ms)",
        `${fmt(old!.ackMs.p99)}, ${oldFloor!.p99}`,
      );
      // A burst after a quiet spell (as Slack's come), not straight after the last one's answers.
      await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
      const [quiet] = await measureAckBursts(stack, fresh, { sizes: [200], modelDelayMs: 50 });
      add(
        "3 acks",
        `  200 after ${QUIET_MS / 1000} s quiet: ack p50 / p99 (ms)`,
        `${fmt(quiet!.ackMs.p50)} / ${fmt(quiet!.ackMs.p99)}`,
      );
    }

    progress("5/7 1,000 idle sessions and 100 paused runs");
    const idle = await measureIdleSessions(stack, fresh, { sessions: 1000, paused: 100 });
    add(b5, "RSS before those sessions (MB)", fmt(idle.rssBeforeMb, 0));
    add(
      b5,
      `RSS with ${idle.sessions} idle sessions + ${idle.pausedRuns} paused runs (MB)`,
      fmt(idle.rssAfterMb, 0),
    );
    await stack.stopProcess(fresh);

    progress("2/7 Postgres statements per turn");
    await pgStatements(stack);

    if (!quick) {
      // The young-generation trade-off for bursts: with 16 MB semi-spaces a burst's requests in flight
      // are copied by fewer scavenges (the last acks wait behind one), for ~20 MB more idle RSS. The
      // same bursts as above on a fresh `npm start` process with the larger cap; read beside the headline.
      const roomy = await stack.start("all", { nodeArgs: [LARGER_SEMI_SPACE] });
      const roomyRss = await settledRssMb(roomy);
      const roomyBursts = await measureAckBursts(stack, roomy, { sizes: [50, 100, 200], modelDelayMs: 50 });
      const last = roomyBursts.at(-1)!;
      add(
        "3 acks",
        `  200 on npm start with ${LARGER_SEMI_SPACE}: ack p50 / p99 (ms); its idle RSS (MB)`,
        `${fmt(last.ackMs.p50)} / ${fmt(last.ackMs.p99)}; ${fmt(roomyRss, 0)}`,
      );
      await stack.stopProcess(roomy);
    }

    progress("5/7 restarts on the migrated database; worker and receiver start");
    // Three restarts (a replica joining, a deploy): the median, as one start can hit a busy moment.
    const starts: number[] = [];
    let rssIdle = Number.NaN;
    for (let i = 0; i < 3; i++) {
      const warm = await stack.start("all");
      starts.push(warm.readyMs / 1000);
      if (i === 2) rssIdle = await settledRssMb(warm);
      await stack.stopProcess(warm);
    }
    const healthz = percentile(starts, 0.5);
    add(b5, "healthz after start, Postgres, migrated db, median of 3 (s)", fmt(healthz, 2), "≤ 3");
    add(b5, "  the three starts (s)", starts.map((x) => fmt(x, 2)).join(", "));
    add(b5, "idle RSS, npm start (MB)", fmt(rssIdle, 0), "≤ 150");
    head.healthz_s = fmt(healthz, 2);
    head.rss_idle_mb = fmt(rssIdle, 0);
    const worker = await stack.start("worker");
    add(b5, "idle RSS, npm run worker (MB)", fmt(await settledRssMb(worker), 0), "≤ 150");
    add(b5, "  worker ready after (s)", fmt(worker.readyMs / 1000, 2));
    await stack.stopProcess(worker);
    // V8's young generation grows to its cap during start-up and stays there: npm start caps it at
    // 4 MB a semi-space; the same worker at 16 MB shows what that saves (docs/performance.md).
    const larger = await stack.start("worker", { nodeArgs: [LARGER_SEMI_SPACE] });
    add(b5, `  the same with node ${LARGER_SEMI_SPACE} (MB)`, fmt(await settledRssMb(larger), 0));
    await stack.stopProcess(larger);
    if (RECEIVER_FLAG) {
      const receiver = await stack.start("receiver");
      add(b5, "idle RSS, npm start -- --receiver (MB)", fmt(await settledRssMb(receiver), 0), "≤ 150");
      add(b5, "  receiver healthz after (s)", fmt(receiver.readyMs / 1000, 2));
      await stack.stopProcess(receiver);
    }
  } finally {
    await stack.close();
  }
}

/** Statements per turn, on a process of its own whose Postgres connections go through a counting proxy. */
async function pgStatements(stack: BenchStack) {
  const r = await measurePgStatements(stack, {
    turns: quick ? 30 : 100,
    warmup: quick ? 10 : 30,
    modelDelayMs: 50,
  });
  const b = "2 end to end";
  add(
    b,
    `Postgres statements per turn (Query + Execute, through a proxy; ${r.turns} turns)`,
    fmt(r.perTurn, 1),
    "≤ 12",
  );
  add(
    b,
    "  of which simple Query / extended Execute",
    `${fmt(r.simplePerTurn, 1)} / ${fmt(r.extendedPerTurn, 1)}`,
  );
  add(b, "  connections opened meanwhile (unreadable: TLS)", `${r.connections} (${r.opaqueConnections})`);
  for (const t of r.byText.slice(0, TOP_STATEMENTS)) {
    const text = t.text.length > STATEMENT_CHARS ? `${t.text.slice(0, STATEMENT_CHARS - 1)}…` : t.text;
    add(b, `    ${text}`, fmt(t.perTurn, 2));
  }
  const rest = r.byText.slice(TOP_STATEMENTS).reduce((a, t) => a + t.perTurn, 0);
  if (rest > 0) add(b, `    (${r.byText.length - TOP_STATEMENTS} other statement texts)`, fmt(rest, 2));
  head.pg_statements_per_turn = fmt(r.perTurn, 1);
}

async function throughput() {
  progress("4/7 throughput with 1, 2, 4 workers");
  const stack = await createBenchStack();
  try {
    const delays = [50, 1000];
    const t = await measureThroughput(stack, { workers: [1, 2, 4], modelDelaysMs: delays, quick });
    const b = "4 throughput";
    add(
      b,
      `receiver: ${t.receiverRunsTurns ? "an npm start process (also works turns: no --receiver here)" : "--receiver"}; ${t.concurrency} turns per worker`,
      "",
    );
    for (const r of t.rows) {
      add(
        b,
        `${r.workers} worker${r.workers > 1 ? "s" : ""}, model ${r.modelDelayMs} ms, ${r.turns} turns: turns/s (CPU: each worker, receiver, driver; machine busy)`,
        `${fmt(r.turnsPerSecond, 1)} (${pct(r.workerCpu)}, ${pct(r.receiverCpu)}, ${pct(r.driverCpu)}; ${pct(r.machineBusy)})`,
      );
    }
    for (const d of delays) {
      add(b, `scaling efficiency at 4 workers, model ${d} ms`, fmt(scalingEfficiency(t.rows, d), 2), "≥ 0.7");
    }
    head.scale_eff_4 = fmt(scalingEfficiency(t.rows, 1000), 2);
  } finally {
    await stack.close();
  }
}

/** A burst in one channel vs the same burst spread over 20, at Slack's published rates. */
async function oneChannel() {
  progress("7/7 one channel vs spread, at Slack's rates (minutes: ~1 message a second a channel)");
  const mentions = quick ? 60 : 200;
  const r = await measureOneChannel({ mentions, spreadChannels: 20, modelDelayMs: 50, log: progress });
  const b = "7 one channel";
  add(b, `${mentions} mentions at once, one tool call each, model 50 ms/call; Slack's rates (scale 1)`, "");
  for (const [label, c] of [
    ["one channel", r.one],
    [`${r.spread.channels} channels`, r.spread],
  ] as const) {
    add(
      b,
      `${label}: burst → its tool ran, p50 / p99 (s)`,
      `${fmt(c.toolMs.p50 / 1000, 2)} / ${fmt(c.toolMs.p99 / 1000, 2)}`,
    );
    add(
      b,
      `  answers shown (counted in the emulator), all after (s); 429s`,
      `${c.answersDelivered}/${c.mentions}, ${fmt(c.allAnsweredMs / 1000, 1)}; ${c.limited}`,
    );
  }
  add(b, "tool-ran p99: one channel / spread", fmt(r.p99Ratio, 2), "≤ 1.5");
  head.one_channel_vs_spread = fmt(r.p99Ratio, 2);
}

async function embeddedStart() {
  progress("5/7 embedded start (PGlite, sandbox)");
  const e = await measureEmbeddedStart();
  add(
    "5 memory",
    "healthz after start, embedded PGlite, fresh data dir (s)",
    fmt(e.freshHealthzMs / 1000, 2),
  );
  add("5 memory", "healthz after start, embedded PGlite, again (s)", fmt(e.warmHealthzMs / 1000, 2));
  add("5 memory", "idle RSS, embedded (MB; PGlite's WebAssembly heap)", fmt(e.rssIdleMb, 0));
}

async function audit() {
  progress("6/7 audit");
  const a = await measureAuditSuite(quick ? QUICK : FULL);
  for (const r of a.appends)
    add("6 audit", `${r.label}: rows/s (p99 ms)`, `${fmt(r.perSecond, 0)} (${fmt(r.p99, 1)})`);
  for (const r of a.decides)
    add("6 audit", `decide, ${r.label}: p50 / p99 (ms)`, `${fmt(r.p50, 1)} / ${fmt(r.p99, 1)}`);
  const sixteen = a.appends.find((r) => r.label === "postgres, 16 writers");
  head.audit_rows_per_s = fmt(sixteen?.perSecond ?? Number.NaN, 0);
}

const started = performance.now();
add(
  "machine",
  "cores, load average at start (1 min)",
  `${cpus().length}, ${fmt(loadavg()[0] ?? Number.NaN, 1)}`,
);
await runtimeOverhead();
await audit();
await singleProcess();
await throughput();
await oneChannel();
await embeddedStart();
progress(`done in ${fmt((performance.now() - started) / 1000, 0)} s`);
add(
  "machine",
  "load average at the end (1 min), run time (s)",
  `${fmt(loadavg()[0] ?? Number.NaN, 1)}, ${fmt((performance.now() - started) / 1000, 0)}`,
);

console.log(formatTable(rows));
const keys = [
  "overhead_vs_bare",
  "overhead_vs_openai_agents",
  "cpu_ms_per_turn",
  "pg_statements_per_turn",
  "ack_p99_vs_floor",
  "one_channel_vs_spread",
  "scale_eff_4",
  "rss_idle_mb",
  "healthz_s",
  "audit_rows_per_s",
];
console.log(`bench ${keys.map((k) => `${k}=${head[k] ?? "n/a"}`).join(" ")}`);
