import type { EntityMetadata } from "@slack/types";
import { errorMessage } from "../../core/errors.ts";
import type { TenantKey } from "../../core/tenant.ts";
import { resolveAccess } from "../../policy/resolve-access.ts";
import { ticketActionButtons } from "./ticket-actions.ts";
import { ticketEntity, ticketIdOfRef } from "./ticket-entity.ts";
import { loadTicketFacts } from "./ticket-facts.ts";
import type { WorkObjectDeps } from "./work-object-deps.ts";

/** The fields of `entity_details_requested` read here (Slack's `EntityDetailsRequestedEvent`). */
export interface EntityDetailsRequest {
  user: string;
  trigger_id: string;
  entity_url?: string;
  external_ref?: { id?: string; type?: string };
  channel?: string;
  message_ts?: string;
  thread_ts?: string;
}

type PresentArgs = {
  trigger_id: string;
  metadata?: EntityMetadata;
  error?: { status: string; custom_title?: string; custom_message?: string };
};

/**
 * Someone opened a ticket's Work Object: `entity.presentDetails` answers with the ticket as it is
 * now (description included) and its buttons, bound to the conversation it was opened from. A person
 * who may not read tickets (`get_ticket` not among their tools) sees "restricted"; a ticket that is
 * gone, "not found".
 */
export async function presentTicketDetails(
  s: WorkObjectDeps,
  event: EntityDetailsRequest,
  tenant: TenantKey,
): Promise<void> {
  const id =
    ticketIdOfRef(event.external_ref) ?? (event.entity_url ? s.links.idOf(event.entity_url) : undefined);
  if (id === undefined) return; // another app's entity
  const log = s.logger.child({ ticket: id, userId: event.user });
  const present = (args: Omit<PresentArgs, "trigger_id">) =>
    s.slack.client.entity.presentDetails({ trigger_id: event.trigger_id, ...args } as PresentArgs);
  try {
    const access = await resolveAccess(
      { users: s.storage.users, config: s.config, registry: s.runtime.registry, guards: s.runtime.guards },
      event.user,
    );
    if (!access.allowed.has("get_ticket")) {
      await present({
        error: {
          status: "custom",
          custom_title: "Restricted",
          custom_message: "You may not read tickets in Hermes; ask an admin for access.",
        },
      });
      return;
    }
    const ticket = await loadTicketFacts(s.storage.db.db, tenant, id);
    if (!ticket) {
      await present({
        error: {
          status: "custom",
          custom_title: "Not found",
          custom_message: `There is no ticket #${id} any more.`,
        },
      });
      return;
    }
    const threadTs = event.thread_ts ?? event.message_ts;
    const actions = ticketActionButtons(ticket, event.user, {
      ...(event.channel ? { channel: event.channel } : {}),
      ...(event.channel && threadTs ? { threadTs } : {}),
    });
    await present({ metadata: ticketEntity(ticket, s.links, { actions }) });
    log.info("ticket details presented");
  } catch (err) {
    log.warn({ err: errorMessage(err) }, "could not present the ticket's details");
  }
}
