import { HermesError } from "../core/errors.ts";
import type { ToolContext } from "./define-tool.ts";

/**
 * Wraps a tool body that uses the database. A deliberate refusal (HermesError) passes through; any
 * other failure (Postgres down, a refused query) becomes one `storage_unavailable` sentence, with the
 * cause logged, never the driver's text (it can hold SQL and parameters). Bodies are single
 * statements, so "nothing was changed" is true when it fails.
 */
export function failClosed<A>(
  what: string,
  execute: (args: A, ctx: ToolContext) => Promise<unknown>,
): (args: A, ctx: ToolContext) => Promise<unknown> {
  return async (args, ctx) => {
    try {
      return await execute(args, ctx);
    } catch (err) {
      if (err instanceof HermesError) throw err;
      ctx.logger.error({ err, runId: ctx.run.runId, sessionKey: ctx.run.sessionKey }, `${what} failed`);
      throw new HermesError(
        "storage_unavailable",
        `The ${what} is unavailable right now, so nothing was changed. Try again in a moment.`,
        { cause: err },
      );
    }
  };
}
