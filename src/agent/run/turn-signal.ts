import { DEFAULT_LIMITS, type RuntimeDeps } from "./runtime-types.ts";

/** The turn's signal: aborted at its wall-clock budget (`turnTimeoutMs`) or when the caller cancels. */
export function turnSignal(deps: RuntimeDeps): { signal: AbortSignal; dispose: () => void } {
  const ms = deps.limits?.turnTimeoutMs ?? DEFAULT_LIMITS.turnTimeoutMs;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error("turn_timeout")), ms);
  const signal = deps.signal ? AbortSignal.any([controller.signal, deps.signal]) : controller.signal;
  return { signal, dispose: () => clearTimeout(timer) };
}
