import type { ServerResponse } from "node:http";
import { type AckFn, ReceiverMultipleAckError } from "@slack/bolt";

export interface HttpAck {
  /** Bolt's `ack`: the first call answers 200, a second throws `ReceiverMultipleAckError`. */
  ack: AckFn<unknown>;
  readonly acked: boolean;
}

/**
 * The `ack` a click, command or `function_executed` event gets over HTTP, answering as Bolt's own
 * receiver does: 200 with no body, a string as text, anything else as JSON. A request not acked within
 * `timeoutMs` gets Bolt's answer for that, a 404 (`onTimeout` logs it), so a hung listener does not
 * hold the connection open for good.
 */
export function createHttpAck(res: ServerResponse, timeoutMs: number, onTimeout: () => void): HttpAck {
  let acked = false;
  const timer = setTimeout(() => {
    if (acked) return;
    acked = true;
    onTimeout();
    if (!res.headersSent) res.writeHead(404).end();
  }, timeoutMs);
  timer.unref();
  return {
    get acked() {
      return acked;
    },
    ack: async (response?: unknown) => {
      if (acked) throw new ReceiverMultipleAckError();
      acked = true;
      clearTimeout(timer);
      writeAckBody(res, response);
    },
  };
}

function writeAckBody(res: ServerResponse, response: unknown): void {
  if (res.headersSent) return;
  if (!response) res.writeHead(200).end();
  else if (typeof response === "string") res.writeHead(200).end(response);
  else res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(response));
}
