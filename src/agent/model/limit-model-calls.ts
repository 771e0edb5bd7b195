import pLimit, { type LimitFunction } from "p-limit";
import type { ChatModel } from "./chat-model.ts";

/** One cap shared by every model it wraps: at most `concurrency` calls in flight in this process. */
export function modelCallLimit(concurrency: number): LimitFunction {
  return pLimit(concurrency);
}

/**
 * `model` whose `complete()` waits for a slot of `limit` (`HERMES_MODEL_CONCURRENCY`), so a burst of
 * turns does not flood a local model server: the primary and the fallback share one limit. A call
 * whose signal fires while it waits leaves the line at once with the signal's reason, and never
 * reaches the model.
 */
export function limitModelCalls(model: ChatModel, limit: LimitFunction): ChatModel {
  return {
    name: model.name,
    maxOutputTokens: model.maxOutputTokens,
    complete(request) {
      const { signal } = request;
      if (!signal) return limit(() => model.complete(request));
      if (signal.aborted) return Promise.reject(signal.reason);
      return new Promise((resolve, reject) => {
        const onAbort = () => reject(signal.reason);
        signal.addEventListener("abort", onAbort, { once: true });
        void limit(async () => {
          // From here the model sees the signal itself, as it does unwrapped.
          signal.removeEventListener("abort", onAbort);
          if (signal.aborted) return; // it left the line already: the slot goes to the next at once
          await model.complete(request).then(resolve, reject);
        });
      });
    },
  };
}
