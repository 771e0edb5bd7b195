import { parse as parseForm } from "node:querystring";
import { z } from "zod";

/**
 * What to do with a correctly signed body before Bolt sees it. Bolt dereferences fields without
 * checking them (`body.user.id`, `'channel' in event`) and answers 500 when they are missing; it also
 * never acks a payload no listener takes (Slack then sees a 404 after 3 s). So every body is checked
 * here: the kinds Hermes handles go on to Bolt when well formed, other kinds are acked and ignored,
 * and malformed ones are refused with 400 (415 for a content type Slack never sends).
 */
export type PayloadDecision =
  | { kind: "forward"; body: Record<string, unknown> }
  | { kind: "ignore"; reason: string }
  | { kind: "reject"; status: 400 | 415; reason: string };

const id = z.string().min(1).max(255);
const ref = z.looseObject({ id });

const eventCallback = z.looseObject({
  type: z.literal("event_callback"),
  event_id: id.optional(),
  team_id: id.optional(),
  authorizations: z.array(z.looseObject({})).optional(),
  event: z.looseObject({
    type: id,
    // Bolt reads `channel` as a string or `{ id }`, and `item.channel`.
    channel: z.union([id, ref]).optional(),
    channel_id: id.optional(),
    item: z.looseObject({}).optional(),
    user: z.union([id, ref]).optional(),
    text: z.string().optional(),
    ts: id.optional(),
    thread_ts: id.optional(),
  }),
});

const urlVerification = z.looseObject({
  type: z.literal("url_verification"),
  challenge: z.string().max(1000),
});

const blockActions = z.looseObject({
  type: z.literal("block_actions"),
  user: z.looseObject({ id, team_id: id.optional() }),
  team: ref.nullable().optional(),
  enterprise: ref.nullable().optional(),
  channel: ref.optional(),
  container: z.looseObject({}).optional(),
  message: z.looseObject({}).optional(),
  view: z.looseObject({}).optional(),
  response_url: z.string().optional(),
  actions: z
    .array(z.looseObject({ action_id: id, block_id: z.string().optional(), value: z.string().optional() }))
    .min(1),
});

/** A modal's submission (the App Home's profile modal): Bolt reads `view.callback_id` and `user.id`. */
const viewSubmission = z.looseObject({
  type: z.literal("view_submission"),
  user: z.looseObject({ id, team_id: id.optional() }),
  team: ref.nullable().optional(),
  enterprise: ref.nullable().optional(),
  view: z.looseObject({
    id,
    callback_id: z.string().max(255),
    private_metadata: z.string().max(3000).optional(),
    state: z.looseObject({ values: z.record(z.string(), z.record(z.string(), z.looseObject({}))) }),
  }),
});

const slashCommand = z.looseObject({
  command: z.string().regex(/^\/[\w.-]{1,64}$/),
  text: z.string().max(8000).optional(),
  user_id: id,
  channel_id: id,
  team_id: id.optional(),
  response_url: z.string().optional(),
  trigger_id: z.string().optional(),
});

/** Checks a signed body (raw bytes and content type) and says what to do with it. */
export function decidePayload(raw: Buffer, contentType: string | undefined): PayloadDecision {
  const type = mediaType(contentType);
  if (type === "application/json") return decideJson(raw);
  if (type === "application/x-www-form-urlencoded") return decideForm(raw);
  return { kind: "reject", status: 415, reason: `unsupported content type ${type || "(none)"}` };
}

/** `Application/JSON; charset=utf-8` → `application/json`. */
function mediaType(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

function decideJson(raw: Buffer): PayloadDecision {
  const body = parseJsonObject(raw.toString("utf8"));
  if (!body) return { kind: "reject", status: 400, reason: "body is not a JSON object" };
  if (body.type === "url_verification") return checked(urlVerification, body, "url_verification");
  // Bolt routes any body with an `event` key as an event, whatever its `type`.
  if ("event" in body || body.type === "event_callback")
    return checked(eventCallback, body, "event_callback");
  return { kind: "ignore", reason: `JSON body of type ${describe(body.type)}` };
}

function decideForm(raw: Buffer): PayloadDecision {
  const fields = parseForm(raw.toString("utf8")) as Record<string, unknown>;
  if ("ssl_check" in fields) return { kind: "forward", body: fields };
  if ("payload" in fields) {
    const payload = typeof fields.payload === "string" ? parseJsonObject(fields.payload) : undefined;
    if (!payload) return { kind: "reject", status: 400, reason: "payload is not a JSON object" };
    if (payload.type === "block_actions") return checked(blockActions, payload, "block_actions");
    // Hermes's own modals (callback ids `hermes.…`); a submission of any other view is acked and ignored.
    if (payload.type === "view_submission" && isHermesView(payload.view))
      return checked(viewSubmission, payload, "view_submission");
    // Hermes registers no shortcuts or menus and asks for no view_closed: acked so Slack shows no error.
    return { kind: "ignore", reason: `interaction of type ${describe(payload.type)}` };
  }
  if ("command" in fields) return checked(slashCommand, fields, "slash command");
  return { kind: "ignore", reason: "form body without payload or command" };
}

function isHermesView(view: unknown): boolean {
  const callbackId = (view as { callback_id?: unknown } | null | undefined)?.callback_id;
  return typeof callbackId === "string" && callbackId.startsWith("hermes.");
}

function checked(schema: z.ZodType, body: Record<string, unknown>, what: string): PayloadDecision {
  const result = schema.safeParse(body);
  if (result.success) return { kind: "forward", body };
  const issue = result.error.issues[0];
  const where = issue?.path.length ? issue.path.join(".") : "body";
  return {
    kind: "reject",
    status: 400,
    reason: `malformed ${what}: ${where}: ${issue?.message ?? "invalid"}`,
  };
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function describe(value: unknown): string {
  return typeof value === "string" ? value.slice(0, 64) : typeof value;
}
