import type { TraceEvent } from "../agent/run/trace.ts";

/**
 * The progress line a turn's trace events become in the "working…" message. Stateful per turn: once
 * the run switched to the fallback model, every later line says so, so the switch stays visible even
 * when the next step's line replaces the one that announced it.
 */
export function createProgressText(): (e: TraceEvent) => string | undefined {
  let fallback: string | undefined;
  const noted = (text: string) => (fallback ? `${text} (fallback model \`${fallback}\`)` : text);
  return (e) => {
    if (e.event === "tool.start") return noted(`:hourglass_flowing_sand: Running \`${e.tool}\`…`);
    if (e.event === "model.fallback") {
      fallback = String(e.model);
      return e.reason === "primary_unavailable"
        ? `:twisted_rightwards_arrows: The model is not answering; going on with the fallback model \`${fallback}\`…`
        : `:twisted_rightwards_arrows: The model's tool calls could not be read; going on with the fallback model \`${fallback}\`…`;
    }
    if (e.event === "model.request" && (e.step > 1 || fallback))
      return noted(":hourglass_flowing_sand: Thinking…");
    return undefined;
  };
}
