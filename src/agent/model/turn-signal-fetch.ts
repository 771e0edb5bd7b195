/**
 * How a model request's own signal (its turn's: the turn timeout, a cancel) reaches `fetch` without
 * the openai SDK composing it with the SDK's own signal through `AbortSignal.any` on every request.
 * That composition (a new composite signal, weak references, a property redefined on the SDK's
 * controller) was the largest single cost Hermes added to a model call (~25 µs of ~200 µs a turn
 * over a bare SDK loop, measured by bench/profile-runtime.ts). Here the turn's signal travels as a
 * request option under a key of its own, and the client's `fetch` links the two signals with one
 * listener each. An abort of either cancels the request, as before.
 */
import type OpenAI from "openai";

/**
 * Request option key (in `fetchOptions`) under which the turn's signal reaches `fetch` (a string, not
 * a symbol: an object literal with a computed key is built the slow way; `fetch` ignores the key).
 */
export const TURN_SIGNAL = "hermesTurnSignal";

type FetchInit = RequestInit & { [TURN_SIGNAL]?: AbortSignal };

/** The SDK request options that carry `signal` to `fetch` (as `fetchOptions`). */
export function withTurnSignal(signal: AbortSignal | undefined): OpenAI.RequestOptions {
  // The SDK passes `fetchOptions` on to `fetch` as they are; it does not type keys of its own.
  return signal ? ({ fetchOptions: { hermesTurnSignal: signal } } as OpenAI.RequestOptions) : {};
}

/**
 * A `fetch` for the model client: a request that carries a turn's signal is cancelled when the turn's
 * signal or the SDK's own (its timeout) aborts, whichever comes first.
 */
export function turnSignalFetch(base: typeof fetch = globalThis.fetch): typeof fetch {
  return (input, init) => {
    const turn = (init as FetchInit | undefined)?.[TURN_SIGNAL];
    if (!turn) return base(input, init);
    if (turn.aborted) return Promise.reject(turn.reason);
    const sdk = init?.signal ?? undefined;
    if (!sdk) return base(input, { ...init, signal: turn });
    if (sdk.aborted) return Promise.reject(sdk.reason);
    const controller = new AbortController();
    // Both listeners live as long as their signals: the SDK's is this request's, the turn's ends with
    // the turn (a handful of requests). The response body is read after this returns, and an abort
    // must still reach it, so nothing is unlinked when the headers arrive.
    turn.addEventListener("abort", () => controller.abort(turn.reason), { once: true });
    sdk.addEventListener("abort", () => controller.abort(sdk.reason), { once: true });
    return base(input, { ...init, signal: controller.signal });
  };
}
