import { createHmac } from "node:crypto";

export interface SlackSignatureHeaders {
  "x-slack-signature": string;
  "x-slack-request-timestamp": string;
}

/**
 * The headers Slack signs every request with:
 * `x-slack-signature: v0=HMAC_SHA256(signing_secret, "v0:" + timestamp + ":" + raw_body)` (hex) and
 * `x-slack-request-timestamp: timestamp` (Unix seconds; receivers refuse ones older than 5 minutes).
 */
export function signSlackRequest({
  signingSecret,
  body,
  timestamp = Math.floor(Date.now() / 1000),
}: {
  signingSecret: string;
  body: string;
  timestamp?: number;
}): SlackSignatureHeaders {
  const digest = createHmac("sha256", signingSecret).update(`v0:${timestamp}:${body}`).digest("hex");
  return { "x-slack-signature": `v0=${digest}`, "x-slack-request-timestamp": String(timestamp) };
}
