import type { Logger } from "../core/logger.ts";
import { linksOf } from "./methods/work-objects.ts";
import type { WorkObjectSender } from "./work-object-events.ts";
import type { Workspace } from "./workspace.ts";

/**
 * What Slack does when a person posts links to one of the app's `unfurl_domains`: it sends the app
 * `link_shared` with those links. Returns the unsubscribe.
 */
export function feedLinkShared(o: {
  workspace: Workspace;
  sender: Pick<WorkObjectSender, "linkShared">;
  domains: readonly string[];
  logger: Logger;
}): () => void {
  const domains = new Set(o.domains.map((d) => d.toLowerCase()));
  return o.workspace.subscribe((event) => {
    if (event.type !== "message_posted" || domains.size === 0) return;
    const m = event.message;
    if (m.bot_id || m.subtype || !m.user || m.user === o.workspace.bot.userId) return;
    const links = linksOf(m.text ?? "").filter((url) => {
      try {
        return domains.has(new URL(url).hostname.toLowerCase());
      } catch {
        return false;
      }
    });
    if (links.length === 0) return;
    o.sender
      .linkShared({ user: m.user, channel: event.channel, messageTs: m.ts, links })
      .catch((err: unknown) => o.logger.warn({ err: String(err) }, "sandbox: link_shared not delivered"));
  });
}
