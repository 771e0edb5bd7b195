import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client";
import type { Metrics, TurnOutcome } from "../core/metrics.ts";
import { callCost, type ModelPrices } from "../core/model-prices.ts";

/** Turns take seconds to minutes (tool calls, approvals waited for elsewhere, long answers). */
const TURN_BUCKETS = [0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300];
/** One model request: a short answer in well under a second, a long streamed one in a minute or two. */
const MODEL_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120];
/** One audit append: a round trip to Postgres, plus the wait for its group commit. */
const AUDIT_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** What one model's calls update, looked up once per model name. */
interface ModelSeries {
  latency: { observe(v: number): void };
  prompt: { inc(v: number): void };
  completion: { inc(v: number): void };
  /** USD per token, when the model has a configured price. */
  price: { input: number; output: number; cost: { inc(v: number): void } } | undefined;
}

export interface HermesMetrics extends Metrics {
  /** This process's own registry (never prom-client's global one), for the route and the gauges. */
  readonly registry: Registry;
}

/**
 * The process's registry with Hermes's counters and histograms and prom-client's default process
 * metrics. Each label value's series is looked up once and kept, so recording is a map lookup and an
 * increment. `model` is the configured primary model, the label of the turn histogram.
 */
export function createHermesMetrics(o: { prices: ModelPrices; model: string | undefined }): HermesMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const turns = new Counter({
    name: "hermes_turns_total",
    help: "Turns (and resumed runs) that ended, by outcome.",
    labelNames: ["outcome"] as const,
    registers,
  });
  const turnSeconds = new Histogram({
    name: "hermes_turn_duration_seconds",
    help: "Time from a worker taking a turn's job to its outcome shown, by model and outcome.",
    labelNames: ["model", "outcome"] as const,
    buckets: TURN_BUCKETS,
    registers,
  });
  const modelSeconds = new Histogram({
    name: "hermes_model_call_duration_seconds",
    help: "Latency of one answered model request, by configured model.",
    labelNames: ["model"] as const,
    buckets: MODEL_BUCKETS,
    registers,
  });
  const tokens = new Counter({
    name: "hermes_model_tokens_total",
    help: "Tokens used by model calls, by configured model and kind (prompt, completion).",
    labelNames: ["model", "kind"] as const,
    registers,
  });
  const cost = new Counter({
    name: "hermes_model_cost_usd_total",
    help: "Estimated cost of model calls in USD from HERMES_MODEL_PRICES (models with a price only).",
    labelNames: ["model"] as const,
    registers,
  });
  const rateLimited = new Counter({
    name: "hermes_slack_rate_limited_total",
    help: "Slack Web API calls answered 429, by method.",
    labelNames: ["method"] as const,
    registers,
  });
  const auditSeconds = new Histogram({
    name: "hermes_audit_append_duration_seconds",
    help: "Time for one audit append to land, as its caller waits (group commit included).",
    buckets: AUDIT_BUCKETS,
    registers,
  });

  const turnModel = o.model ?? "none";
  const outcomes = ["completed", "paused", "stopped", "failed"] as const satisfies TurnOutcome[];
  // Every outcome's series exists from the start: a rate over a counter that appears late misses its first increase.
  const turnSeries = new Map(
    outcomes.map((outcome) => [
      outcome,
      { count: started(turns.labels(outcome)), seconds: turnSeconds.labels(turnModel, outcome) },
    ]),
  );
  const modelSeries = new Map<string, ModelSeries>();
  const seriesOf = (model: string): ModelSeries => {
    let s = modelSeries.get(model);
    if (!s) {
      const input = callCost(o.prices, [model], { promptTokens: 1, completionTokens: 0 });
      const output = callCost(o.prices, [model], { promptTokens: 0, completionTokens: 1 });
      s = {
        latency: modelSeconds.labels(model),
        prompt: started(tokens.labels(model, "prompt")),
        completion: started(tokens.labels(model, "completion")),
        price:
          input === null || output === null
            ? undefined
            : { input, output, cost: started(cost.labels(model)) },
      };
      modelSeries.set(model, s);
    }
    return s;
  };
  if (o.model) seriesOf(o.model);

  return {
    registry,
    turnFinished(outcome, seconds) {
      const s = turnSeries.get(outcome);
      if (!s) return;
      s.count.inc();
      s.seconds.observe(seconds);
    },
    modelCall(model, seconds, promptTokens, completionTokens) {
      const s = seriesOf(model);
      s.latency.observe(seconds);
      s.prompt.inc(promptTokens);
      s.completion.inc(completionTokens);
      if (s.price) s.price.cost.inc(promptTokens * s.price.input + completionTokens * s.price.output);
    },
    slackRateLimited(budgetKey) {
      // A per-channel budget's key is "method channel": the method is the label, never the channel.
      const space = budgetKey.indexOf(" ");
      rateLimited.inc({ method: space === -1 ? budgetKey : budgetKey.slice(0, space) });
    },
    auditAppend(seconds) {
      auditSeconds.observe(seconds);
    },
  };
}

/** A counter's series shown at 0 from now on (prom-client shows a labelled series once it moves). */
function started<C extends { inc(v: number): void }>(series: C): C {
  series.inc(0);
  return series;
}
