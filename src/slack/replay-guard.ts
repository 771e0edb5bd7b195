import { hash } from "node:crypto";
import type { AnyMiddlewareArgs, App, Middleware } from "@slack/bolt";
import { errorMessage } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import type { Storage } from "../storage.ts";
import { auditReplayedClick } from "./audit-replayed-click.ts";
import { SIGNATURE_WINDOW_SECONDS } from "./verify-signature.ts";

// Longer than the whole window a signed body is accepted in (±5 minutes): a replay inside it finds
// its claim still there, never a stale one it could take over.
const CLAIM_MS = (2 * SIGNATURE_WINDOW_SECONDS + 300) * 1000;

/**
 * Slash commands, clicks and modal submissions carry no event id, so a captured signed request could be sent again
 * within the signature window and run twice (`/hermes schedule add …` twice). Each one is claimed
 * once, durably (`slack_events`, key `cmd:<sha256 of the signed body>` or `int:<…>`); a replay is
 * acked and dropped before any listener runs. Slack itself never retries these (a new command or
 * click has a new `trigger_id`/`action_ts`, hence a new body). Events keep their `event_id` dedupe.
 *
 * With the storage down the request goes on (logged): every effect it could have needs the same
 * storage, and a user's `/hermes help` still gets its answer.
 */
type ReplayDeps = Pick<Storage, "events" | "approvals" | "audit"> & { logger: Logger };

export function registerReplayGuard(app: App, s: ReplayDeps): void {
  app.use(replayGuard(s));
}

function replayGuard(s: ReplayDeps): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const body = args.body as Record<string, unknown>;
    const prefix =
      typeof body.command === "string"
        ? "cmd"
        : body.type === "block_actions" || body.type === "view_submission"
          ? "int"
          : undefined;
    if (!prefix) return args.next();
    const sha = (args.context as { hermesBodySha256?: string }).hermesBodySha256 ?? hashOf(body);
    const key = `${prefix}:${sha}`;
    let claimed = false;
    try {
      claimed = (await s.events.claim(key, { staleAfterMs: CLAIM_MS })) !== "duplicate";
    } catch (err) {
      s.logger.warn({ err: errorMessage(err), key }, "replay check unavailable; request handled anyway");
      return args.next();
    }
    if (!claimed) {
      s.logger.warn({ key, user: userOf(body) }, "replayed Slack request ignored");
      if ("ack" in args && typeof args.ack === "function") await (args.ack as () => Promise<void>)();
      if (prefix === "int") await auditReplayedClick(s, body);
      return;
    }
    try {
      await args.next();
    } finally {
      await s.events.finish(key, "done").catch(() => undefined);
    }
  };
}

/** Socket Mode (and apps without our receiver) have no raw body: the parsed one stands in. */
function hashOf(body: Record<string, unknown>): string {
  return hash("sha256", JSON.stringify(body), "hex");
}

function userOf(body: Record<string, unknown>): unknown {
  return body.user_id ?? (body.user as { id?: unknown } | undefined)?.id;
}
