import { z } from "zod";
import type { Logger } from "../../core/logger.ts";
import type { WorkObjectSender } from "../work-object-events.ts";
import { workObjectsOf } from "../work-objects-state.ts";
import type { Workspace } from "../workspace.ts";
import { describeIssues } from "./api-inputs.ts";
import { PageApiError } from "./json-http.ts";
import { person } from "./page-actions.ts";
import { canSee } from "./user-view.ts";

const userId = z.string().regex(/^[UW][A-Z0-9]{1,20}$/, "not a user id");
const openSchema = z.object({
  as: userId,
  channel: z.string().regex(/^[CDG][A-Z0-9]{1,20}$/, "not a channel id"),
  messageTs: z.string().regex(/^\d{1,12}\.\d{6}$/, "not a message ts"),
  index: z.number().int().min(0).max(49).optional(),
});
const actionSchema = z.object({ as: userId, actionId: z.string().min(1).max(255) });

/** How long the page waits for the app's `entity.presentDetails` (Slack's trigger lasts 3 s). */
const PANEL_WAIT_MS = 5_000;

/**
 * The page's Work Object routes: opening a Work Object of a message (Slack sends the app
 * `entity_details_requested`, the app answers with `entity.presentDetails`, the page shows that panel)
 * and clicking a button of the panel (a `block_actions` to the app).
 */
export function createWorkObjectRoutes(o: {
  workspace: Workspace;
  sender: WorkObjectSender;
  logger: Logger;
}) {
  const { workspace, sender, logger } = o;
  const state = workObjectsOf(workspace);

  function parse<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
    const parsed = schema.safeParse(body);
    if (!parsed.success) throw new PageApiError(400, "invalid_input", describeIssues(parsed.error));
    return parsed.data;
  }

  async function reach<T>(what: string, send: () => Promise<T & { status: number }>): Promise<T> {
    let d: T & { status: number };
    try {
      d = await send();
    } catch (err) {
      logger.warn({ err, what }, "sandbox page: the bot could not be reached");
      throw new PageApiError(502, "bot_unreachable", "Hermes could not be reached. Is it running?");
    }
    if (d.status < 200 || d.status >= 300)
      throw new PageApiError(502, "bot_refused", `Hermes answered HTTP ${d.status}.`);
    return d;
  }

  return {
    "/sandbox/api/work-objects/open": async (body: unknown) => {
      const input = parse(openSchema, body);
      person(workspace, input.as);
      if (!canSee(workspace, input.channel, input.as))
        throw new PageApiError(403, "not_in_channel", "You are not in that channel.");
      const entities = (
        workspace.getMessage(input.channel, input.messageTs)?.metadata as { entities?: unknown[] }
      )?.entities;
      if (!Array.isArray(entities) || !entities[input.index ?? 0])
        throw new PageApiError(404, "no_work_object", "That message has no Work Object to open.");
      const d = await reach("entity_details_requested", () =>
        sender.entityDetailsRequested({
          user: input.as,
          channel: input.channel,
          messageTs: input.messageTs,
          index: input.index ?? 0,
        }),
      );
      const until = Date.now() + PANEL_WAIT_MS;
      for (;;) {
        const shown = state.presentedTo(input.as);
        if (shown?.triggerId === d.triggerId)
          return { panel: { metadata: shown.metadata ?? null, error: shown.error ?? null } };
        if (Date.now() > until)
          throw new PageApiError(504, "no_details", "Hermes did not present the details in time.");
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    "/sandbox/api/work-objects/action": async (body: unknown) => {
      const input = parse(actionSchema, body);
      person(workspace, input.as);
      if (!state.presentedTo(input.as))
        throw new PageApiError(409, "no_panel", "Open the Work Object again: no detail panel is showing.");
      await reach("the panel's button", () =>
        sender.entityAction({ user: input.as, actionId: input.actionId }),
      );
      return {};
    },
  };
}
