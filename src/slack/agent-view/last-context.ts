import type { AgentViewContext } from "./app-context.ts";

/** People whose context is kept at once; the oldest is forgotten first. */
const MAX_PEOPLE = 5_000;

/**
 * What each person last looked at (`app_context_changed`), for a message that arrives without its
 * own `app_context`. Kept in this process only and bounded: a message's own context always wins, so
 * a replica that missed the change just has less to say.
 */
export function createLastContext(max = MAX_PEOPLE) {
  const byUser = new Map<string, AgentViewContext>();
  return {
    set(userId: string, context: AgentViewContext): void {
      byUser.delete(userId);
      if (!context.untrustedContext) return;
      byUser.set(userId, context);
      if (byUser.size > max) byUser.delete(byUser.keys().next().value as string);
    },
    get(userId: string): AgentViewContext {
      return byUser.get(userId) ?? {};
    },
  };
}
