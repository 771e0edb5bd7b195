import type { AnyMiddlewareArgs, Middleware } from "@slack/bolt";
import { ErrorCode } from "@slack/bolt";
import { errorMessage } from "../errors.ts";
import type { Logger } from "../logger.ts";

/**
 * The outermost Bolt middleware (HTTP mode). A click on an action id no listener takes is never
 * acked by Bolt (Slack then shows the user an error after 3 s), and a listener that throws before
 * its ack makes Bolt answer 500. After the listeners ran, this acks whatever is still unacked and
 * logs the error: an ignorable request gets its 200. A second ack throws (code
 * `ReceiverMultipleAckError`) in HTTP mode, which is how an already acked request is recognised.
 */
export function ackUnhandled(logger: Logger): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    try {
      await args.next();
    } catch (err) {
      logger.error({ err: errorMessage(err) }, "a Slack listener failed");
    }
    if (!("ack" in args) || typeof args.ack !== "function") return; // events were acked before Bolt (RecordFirstApp)
    try {
      await (args.ack as () => Promise<void>)();
      logger.info({ type: (args.body as { type?: unknown }).type }, "Slack request no listener took: acked");
    } catch (err) {
      if ((err as { code?: unknown }).code !== ErrorCode.ReceiverMultipleAckError)
        logger.warn({ err: errorMessage(err) }, "could not ack a Slack request");
    }
  };
}
