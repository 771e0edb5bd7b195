/**
 * Postgres statements per turn, counted outside Hermes: an `npm start` process whose `DATABASE_URL`
 * points at a proxy in front of the stack's Postgres (`lib/pg-statement-counter.ts`) runs the same turn
 * as the end-to-end benchmark (one tool call: two model steps) one at a time. The statements counted
 * between the first and the last measured turn (every one the process sent, including any timer's),
 * divided by the turns, and the same by statement text. Its own process, not the end-to-end one: the
 * proxy's hop would lengthen the turns that benchmark times.
 */
import type { BenchStack } from "./lib/bench-stack.ts";
import { within } from "./lib/bench-stack.ts";
import { countsBetween, startPgStatementCounter } from "./lib/pg-statement-counter.ts";

const STEPS_PER_TURN = 2;

export interface PgStatementsResult {
  turns: number;
  perTurn: number;
  simplePerTurn: number;
  extendedPerTurn: number;
  /** Statement texts (normalized, cut), most frequent first, with how many a turn. */
  byText: Array<{ text: string; perTurn: number }>;
  /** Connections the process opened during the measured turns, and those that could not be read. */
  connections: number;
  opaqueConnections: number;
}

export async function measurePgStatements(
  stack: BenchStack,
  o: { turns: number; warmup: number; modelDelayMs: number },
): Promise<PgStatementsResult> {
  const counter = await startPgStatementCounter(stack.db.url);
  try {
    const hermes = await stack.start("all", { env: { DATABASE_URL: counter.proxiedUrl(stack.db.url) } });
    try {
      const driver = stack.driver(hermes);
      stack.state.modelDelayMs = o.modelDelayMs;
      const one = async () => {
        const calls0 = stack.state.modelCalls;
        const sent = await driver.send("tool");
        await within(60_000, `answer to ${sent.token}`, sent.done);
        const calls = stack.state.modelCalls - calls0;
        if (calls !== STEPS_PER_TURN)
          throw new Error(`a turn made ${calls} model calls, not ${STEPS_PER_TURN}`);
      };
      for (let i = 0; i < o.warmup; i++) await one();
      // Both snapshots right after an answer is posted: the writes a turn makes after its answer
      // (behind the run) fall in the window for the last warm-up turn and out of it for the last
      // measured one, so each turn is counted once.
      const before = counter.snapshot();
      for (let i = 0; i < o.turns; i++) await one();
      const d = countsBetween(before, counter.snapshot());
      return {
        turns: o.turns,
        perTurn: d.total / o.turns,
        simplePerTurn: d.simple / o.turns,
        extendedPerTurn: d.extended / o.turns,
        byText: [...d.byText.entries()]
          .sort((a, b) => b[1] - a[1])
          .map(([text, n]) => ({ text, perTurn: n / o.turns })),
        connections: d.connections,
        opaqueConnections: d.opaqueConnections,
      };
    } finally {
      await stack.stopProcess(hermes);
    }
  } finally {
    await counter.close();
  }
}
