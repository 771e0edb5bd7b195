/** How the Runs panel writes numbers: durations, tokens, dollars, statuses. */

export function formatMs(ms) {
  if (ms == null) return "–";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function formatTokens(n) {
  if (n == null) return "–";
  return n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

/** Dollars; a step whose price is unknown shows none (only its tokens). */
export function formatCost(usd) {
  if (usd == null) return "";
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/**
 * A run's cost, or when a model it used has no configured price (HERMES_MODEL_PRICES):
 * "tokens only (no price for <model>)".
 */
export function runCost(run) {
  if (run.costUsd != null) return formatCost(run.costUsd);
  const models = run.unpricedModels?.length ? run.unpricedModels : (run.models ?? []);
  return `tokens only (no price for ${models.length ? models.join(", ") : "its model"})`;
}

/** `completed` reads as "answered" to people. */
export function statusLabel(status) {
  return status === "completed" ? "answered" : status;
}
