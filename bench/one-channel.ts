/**
 * One busy channel against the same load spread out: `mentions` app_mentions delivered at once, each a
 * thread of its own, all in one channel, then (on a fresh stack) the same number spread over
 * `channels` channels, against the Slack emulator enforcing Slack's published Web API rates (scale 1:
 * `chat.postMessage` ~1 a second per channel, `chat.update` 50 a minute per workspace, …), with Hermes
 * pacing itself to the same rates (`HERMES_SLACK_RATE_SCALE=1`). One `npm start` process on Postgres
 * and Redis; the scripted model waits `modelDelayMs` a call; each turn opens one ticket
 * (`create_ticket`), then answers. A mention's time is from the burst leaving the client to its
 * ticket's `created_at` (Postgres' clock for the insert; both clocks are this machine's). Every
 * answer must show in its thread in the emulator: a case with one missing fails the benchmark.
 */
import pg from "pg";
import { type BenchStack, CHANNEL, createBenchStack, USER, within } from "./lib/bench-stack.ts";
import { type Summary, summarize } from "./lib/stats.ts";

export interface ChannelCaseResult {
  channels: number;
  mentions: number;
  /** Burst start → the mention's tool ran (its ticket's insert), ms. */
  toolMs: Summary;
  /** Burst start → the last answer shown, ms. */
  allAnsweredMs: number;
  /** Answers shown in their threads, counted in the emulator. */
  answersDelivered: number;
  /** Calls the emulator answered 429, and Web API calls by method. */
  limited: number;
  callsByMethod: Record<string, number>;
}

export interface OneChannelResult {
  one: ChannelCaseResult;
  spread: ChannelCaseResult;
  /** p99 of `one.toolMs` over p99 of `spread.toolMs`. */
  p99Ratio: number;
}

export async function measureOneChannel(o: {
  mentions: number;
  spreadChannels: number;
  modelDelayMs: number;
  log?: (line: string) => void;
}): Promise<OneChannelResult> {
  const one = await channelCase([CHANNEL], o);
  o.log?.(`one channel: ${describeCase(one)}`);
  const spreadIds = Array.from(
    { length: o.spreadChannels },
    (_, i) => `C0SPREAD${String(i + 1).padStart(2, "0")}`,
  );
  const spread = await channelCase(spreadIds, o);
  o.log?.(`${o.spreadChannels} channels: ${describeCase(spread)}`);
  return { one, spread, p99Ratio: one.toolMs.p99 / spread.toolMs.p99 };
}

export function describeCase(c: ChannelCaseResult): string {
  return (
    `${c.mentions} mentions: tool ran p50 ${(c.toolMs.p50 / 1000).toFixed(2)} s, p99 ${(c.toolMs.p99 / 1000).toFixed(2)} s; ` +
    `${c.answersDelivered}/${c.mentions} answers shown after ${(c.allAnsweredMs / 1000).toFixed(1)} s; ` +
    `429s ${c.limited}; calls ${JSON.stringify(c.callsByMethod)}`
  );
}

/** One burst over `channels` on a stack of its own (fresh rate budgets, database and process). */
async function channelCase(
  channels: string[],
  o: { mentions: number; modelDelayMs: number },
): Promise<ChannelCaseResult> {
  const stack = await createBenchStack({ emulator: { rateLimits: { scale: 1 } } });
  try {
    const ws = stack.emulator.workspace;
    for (const id of channels)
      if (!ws.getChannel(id))
        ws.addChannel({ id, name: id.toLowerCase(), members: [ws.bot.userId, USER, "U0ADMIN"] });
    const hermes = await stack.start("all", { env: { HERMES_SLACK_RATE_SCALE: "1" } });
    stack.state.modelDelayMs = o.modelDelayMs;
    let firedAt = Number.NaN;
    const sent = await stack.burst(hermes, "tool", o.mentions, "raw", {
      channels,
      onFiring: () => {
        firedAt = Date.now();
      },
    });
    // Bounds a hang only: at Slack's rates one channel's working messages alone take ~1 s each.
    const answered = await within(
      120_000 + o.mentions * 3_000,
      `answers to ${o.mentions} mentions in ${channels.length} channel(s)`,
      Promise.all(sent.map((s) => s.done)),
    );
    const delivered = sent.filter((s, i) =>
      (ws.replies(channels[i % channels.length]!, s.ts) ?? []).some(
        (m) => m.user === ws.bot.userId && m.text.includes(`Answer ${s.token}.`),
      ),
    ).length;
    if (delivered !== o.mentions)
      throw new Error(
        `${channels.length} channel(s): ${delivered} of ${o.mentions} answers shown in their threads`,
      );
    const ran = await ticketTimes(stack);
    const toolMs = sent.map((s) => {
      const at = ran.get(s.token);
      if (at === undefined) throw new Error(`no ticket for mention ${s.token}`);
      return at - firedAt;
    });
    const callsByMethod: Record<string, number> = {};
    for (const c of stack.emulator.calls) callsByMethod[c.method] = (callsByMethod[c.method] ?? 0) + 1;
    const limited = [...(stack.emulator.rateLimits?.limited.values() ?? [])].reduce((a, n) => a + n, 0);
    return {
      channels: channels.length,
      mentions: o.mentions,
      toolMs: summarize(toolMs),
      allAnsweredMs: Math.max(...answered),
      answersDelivered: delivered,
      limited,
      callsByMethod,
    };
  } finally {
    await stack.close();
  }
}

/** Each bench ticket's insert time (epoch ms), by the mention token in its title. */
async function ticketTimes(stack: BenchStack): Promise<Map<string, number>> {
  const client = new pg.Client({ connectionString: stack.db.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ title: string; at: number }>(
      "select title, extract(epoch from created_at)::float8 * 1000 as at from tickets where title like 'Bench ticket %'",
    );
    const times = new Map<string, number>();
    for (const r of rows) {
      const token = r.title.slice("Bench ticket ".length);
      if (times.has(token)) throw new Error(`two tickets for mention ${token}`);
      times.set(token, Number(r.at));
    }
    return times;
  } finally {
    await client.end();
  }
}
