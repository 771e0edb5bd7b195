import { httpFetch } from "../http/http-fetch.ts";
import { signSlackRequest } from "./slack-signature.ts";
import type { SandboxMessage } from "./workspace-types.ts";

export interface DeliveryOptions {
  /** Sets `x-slack-retry-num` (1–3), as Slack does on redelivery. */
  retryNum?: number;
  /** `x-slack-retry-reason`, e.g. `http_timeout`, `http_error`. */
  retryReason?: string;
  /** Sign with the wrong secret. */
  badSignature?: boolean;
  /** Sign with a timestamp 10 minutes old (receivers refuse more than 5). */
  oldTimestamp?: boolean;
  /** Unix seconds for `x-slack-request-timestamp` (default: the real clock, which receivers check against). */
  timestamp?: number;
  /** Reuse an `event_id` (Slack keeps it on retries). */
  eventId?: string;
}

/** What the receiver answered, and what was sent. */
export interface Delivery {
  status: number;
  body: string;
  headers: Record<string, string>;
  request: { body: string; contentType: string; headers: Record<string, string> };
  payload: Record<string, unknown>;
  eventId?: string;
  /** The message recorded in the workspace for a user message, when there is a workspace. */
  message?: SandboxMessage;
}

/** Keep-alive node:http: a delivery costs less CPU than a `fetch`. */
const deliveryFetch = httpFetch();

/** POSTs a body to the receiver with Slack's headers: content type, user agent, signature, retries. */
export async function deliverSigned({
  url,
  signingSecret,
  body,
  contentType,
  options,
}: {
  url: string;
  signingSecret: string;
  body: string;
  contentType: string;
  options: DeliveryOptions;
}): Promise<Omit<Delivery, "payload" | "eventId" | "message">> {
  const seconds = Math.floor(Date.now() / 1000);
  const timestamp = options.timestamp ?? (options.oldTimestamp ? seconds - 600 : seconds);
  const secret = options.badSignature ? `${signingSecret}-wrong` : signingSecret;
  const headers: Record<string, string> = {
    "content-type": contentType,
    "user-agent": "Slackbot 1.0 (+https://api.slack.com/robots)",
    ...signSlackRequest({ signingSecret: secret, body, timestamp }),
    ...(options.retryNum !== undefined ? { "x-slack-retry-num": String(options.retryNum) } : {}),
    ...(options.retryReason ? { "x-slack-retry-reason": options.retryReason } : {}),
  };
  const response = await deliveryFetch(url, { method: "POST", headers, body });
  return {
    status: response.status,
    body: await response.text(),
    headers: Object.fromEntries(response.headers.entries()),
    request: { body, contentType, headers },
  };
}
