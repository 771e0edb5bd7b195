import type { App, BlockAction, ButtonAction } from "@slack/bolt";
import { errorMessage } from "../../core/errors.ts";
import { tenantKey } from "../../core/tenant.ts";
import { runTicketAction } from "./action-turn.ts";
import { type EntityDetailsRequest, presentTicketDetails } from "./present-details.ts";
import { TICKET_ACTION_IDS } from "./ticket-actions.ts";
import { type LinkShared, unfurlTicketLinks } from "./unfurl-links.ts";
import type { WorkObjectDeps } from "./work-object-deps.ts";

/** The events the Work Objects need (manifest.yml `bot_events`). */
export const WORK_OBJECT_EVENTS = ["link_shared", "entity_details_requested"] as const;

/**
 * Tickets as Work Objects (manifest: `link_shared`, `entity_details_requested`, `links:read`,
 * `links:write`, `unfurl_domains`): ticket links unfurl, a ticket's details open with its buttons,
 * and a click runs the ticket tool as the person who clicked.
 */
export function registerWorkObjects(app: App, s: WorkObjectDeps): void {
  // A ticket is shown only to its own team (`core/tenant.ts`): another team's reads as missing.
  app.event("link_shared", async ({ event, context }) => {
    const tenant = tenantKey(context.teamId, context.enterpriseId);
    await unfurlTicketLinks(s, event as unknown as LinkShared, tenant);
  });
  app.event("entity_details_requested", async ({ event, context }) => {
    const tenant = tenantKey(context.teamId, context.enterpriseId);
    await presentTicketDetails(s, event as unknown as EntityDetailsRequest, tenant);
  });
  for (const actionId of TICKET_ACTION_IDS) {
    app.action<BlockAction<ButtonAction>>(actionId, async ({ ack, body, action }) => {
      await ack();
      const userId = body.user?.id;
      if (!userId) return;
      const log = s.logger.child({ actionId, userId });
      try {
        const click = { userId, actionId, value: action.value, teamId: body.team?.id };
        const outcome = await runTicketAction(s, click);
        log.info({ outcome }, "ticket action");
      } catch (err) {
        log.warn({ err: errorMessage(err) }, "ticket action not run");
        await s.slack.client.chat
          .postMessage({
            channel: userId,
            text: ":warning: I could not run that ticket action right now, so nothing changed. Please try again in a minute.",
          })
          .catch(() => undefined);
      }
    });
  }
}
