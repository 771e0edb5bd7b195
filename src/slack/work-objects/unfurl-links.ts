import type { EntityMetadata } from "@slack/types";
import { errorMessage } from "../../core/errors.ts";
import type { TenantKey } from "../../core/tenant.ts";
import { ticketEntity } from "./ticket-entity.ts";
import { loadTicketFacts } from "./ticket-facts.ts";
import type { WorkObjectDeps } from "./work-object-deps.ts";

/** The fields of `link_shared` read here (Slack's `LinkSharedEvent`). */
export interface LinkShared {
  channel: string;
  message_ts: string;
  links: Array<{ url: string; domain?: string }>;
  unfurl_id?: string;
  source?: string;
}

/** One unfurl has at most this many Work Objects: a message pasting more tickets shows the first ones. */
const MAX_UNFURLS = 5;

/**
 * Links to tickets in a message unfurl as Work Objects: one `chat.unfurl` with the tickets' entities,
 * each naming the link as it was posted (`app_unfurl_url`). Other links, and links to tickets that do
 * not exist, are left as they are. A link in the composer (`unfurl_id` + `source`) is answered so too.
 */
export async function unfurlTicketLinks(
  s: WorkObjectDeps,
  event: LinkShared,
  tenant: TenantKey,
): Promise<void> {
  const entities: EntityMetadata[] = [];
  const seen = new Set<string>();
  for (const link of event.links ?? []) {
    if (entities.length >= MAX_UNFURLS || seen.has(link.url)) continue;
    seen.add(link.url);
    const id = s.links.idOf(link.url);
    if (id === undefined) continue;
    const ticket = await loadTicketFacts(s.storage.db.db, tenant, id);
    if (ticket) entities.push(ticketEntity(ticket, s.links, { appUnfurlUrl: link.url }));
  }
  if (entities.length === 0) return;
  const source =
    event.source === "composer" || event.source === "conversations_history" ? event.source : undefined;
  const metadata = { entities };
  try {
    await s.slack.client.chat.unfurl(
      event.unfurl_id && source
        ? { unfurl_id: event.unfurl_id, source, metadata }
        : { channel: event.channel, ts: event.message_ts, metadata },
    );
    s.logger.info({ channel: event.channel, tickets: entities.length }, "ticket links unfurled");
  } catch (err) {
    s.logger.warn({ err: errorMessage(err), channel: event.channel }, "could not unfurl ticket links");
  }
}
