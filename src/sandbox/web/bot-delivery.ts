import { z } from "zod";
import type { Logger } from "../../core/logger.ts";
import type { Delivery } from "../signed-delivery.ts";
import { describeIssues } from "./api-inputs.ts";
import { PageApiError } from "./json-http.ts";

/** A person's user id and a channel id, as the page's actions take them. */
export const pageUserId = z.string().regex(/^[UW][A-Z0-9]{1,20}$/, "not a user id");
export const pageChannelId = z.string().regex(/^[CDG][A-Z0-9]{1,20}$/, "not a channel id");

/** A page action's body, checked: a 400 with what is wrong, never a throw of zod's. */
export function parsePageInput<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new PageApiError(400, "invalid_input", describeIssues(parsed.error));
  return parsed.data;
}

/**
 * Sends what the page did to the bot as Slack would: an unreachable bot is a 502 saying so, and an
 * answer other than 2xx a 502 naming its status.
 */
export async function deliverToBot(
  logger: Logger,
  what: string,
  send: () => Promise<Delivery>,
): Promise<void> {
  let delivery: Delivery;
  try {
    delivery = await send();
  } catch (err) {
    logger.warn({ err, what }, "sandbox page: the bot could not be reached");
    throw new PageApiError(502, "bot_unreachable", "Hermes could not be reached. Is it running?");
  }
  if (delivery.status < 200 || delivery.status >= 300)
    throw new PageApiError(502, "bot_refused", `Hermes answered HTTP ${delivery.status}.`);
}
