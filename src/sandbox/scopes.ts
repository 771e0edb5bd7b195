import { SlackApiError } from "./api-error.ts";
import type { MethodContext } from "./method-types.ts";

/** Slack's refusal when the token lacks `scope`: `missing_scope` with `needed` and `provided`. */
export function requireScope(ctx: MethodContext, scope: string): void {
  if (ctx.scopes.has(scope)) return;
  throw new SlackApiError("missing_scope", { needed: scope, provided: [...ctx.scopes].join(",") });
}
