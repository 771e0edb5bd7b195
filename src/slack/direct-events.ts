import type { ServerResponse } from "node:http";
import type { App, ReceiverEvent } from "@slack/bolt";
import { errorMessage } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { type GuardedRequest, header } from "./request-guard.ts";

/**
 * The Events API callback the request guard let through (verified and parsed once), if `req` is one:
 * Bolt's HTTP receiver is then not needed for it. Everything else (clicks, commands, url_verification,
 * ssl_check) has no such body and goes on to Bolt's receiver.
 */
export function eventCallbackOf(req: GuardedRequest): Record<string, unknown> | undefined {
  const body = req.hermesPayload;
  return body?.type === "event_callback" && req.headers["content-type"] === "application/json"
    ? body
    : undefined;
}

/**
 * Hands an Events API callback straight to the App, as Bolt's HTTP receiver would, without its second
 * read and parse of the body, its ack object and its no-ack timer on the path every event takes
 * before its ack. The ack is the 200 (written once); `RecordFirstApp` sends it once the event is
 * recorded. A failure before the ack answers 500 (Slack retries); one after it is logged.
 */
export async function deliverEventCallback(
  app: Pick<App, "processEvent">,
  req: GuardedRequest,
  res: ServerResponse,
  body: Record<string, unknown>,
  logger: Logger,
): Promise<void> {
  const event: ReceiverEvent = {
    body,
    ack: async () => {
      if (res.headersSent) return;
      res.writeHead(200);
      res.end();
    },
    retryNum: retryNumOf(header(req, "x-slack-retry-num")),
    retryReason: header(req, "x-slack-retry-reason"),
    customProperties: req.hermesBodySha256 ? { hermesBodySha256: req.hermesBodySha256 } : {},
  };
  try {
    await app.processEvent(event);
  } catch (err) {
    const eventId = typeof body.event_id === "string" ? body.event_id : undefined;
    if (res.headersSent) {
      logger.error({ err: errorMessage(err), eventId }, "a Slack event's processing failed after its ack");
      return;
    }
    logger.error(
      { err: errorMessage(err), eventId },
      "a Slack event failed before its ack; Slack will retry it",
    );
    res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
    res.end("internal error");
  }
}

function retryNumOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number.parseInt(value, 10);
  return Number.isNaN(n) ? undefined : n;
}
