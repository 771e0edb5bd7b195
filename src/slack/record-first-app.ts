import { App, type AppOptions, type ReceiverEvent } from "@slack/bolt";
import { errorMessage } from "../errors.ts";
import type { Logger } from "../logger.ts";

/** Where an Events API listener finds its request's ack in Bolt's `context`. */
const ACK_KEY = "hermesAckEvent";

/**
 * Bolt acks every Events API request before its middleware runs, so an acked event could still be
 * lost (the process dies before it is written down) and the ack waited behind whatever the event loop
 * was doing. Hermes acks an event once it is durably recorded instead: this App hands the ack to the
 * listeners (`ackEvent(context)`, called right after the event's claim is written) and acks whatever
 * no listener did when Bolt is done with the event (ignored kinds, the bot's own messages, a listener
 * that threw). The work after the ack (working message, enqueue) runs off the request path: Slack has
 * its answer by then. The same over HTTP (the ack is the 200) and Socket Mode (the envelope's ack).
 * Clicks, commands and `function_executed` keep Bolt's own `ack`, which their listeners call.
 */
export class RecordFirstApp extends App {
  readonly #log: Logger;

  constructor(options: AppOptions, log: Logger) {
    super(options);
    this.#log = log;
  }

  override async processEvent(event: ReceiverEvent): Promise<void> {
    if (!isEventsApiCallback(event.body)) return super.processEvent(event);
    const ack = once(event.ack);
    try {
      await super.processEvent({
        ...event,
        ack: async () => undefined,
        customProperties: { ...event.customProperties, [ACK_KEY]: ack },
      });
    } finally {
      await ack().catch((err: unknown) =>
        this.#log.warn(
          { err: errorMessage(err), eventId: event.body.event_id },
          "could not ack a Slack event",
        ),
      );
    }
  }
}

/**
 * Acks the Events API request `context` belongs to (once; later calls wait for the first). A no-op
 * where there is none to ack (an app built without `RecordFirstApp`, whose events Bolt acked).
 */
export function ackEvent(context: Record<string, unknown>): Promise<void> {
  const ack = context[ACK_KEY];
  return typeof ack === "function" ? (ack as () => Promise<void>)() : Promise.resolve();
}

function isEventsApiCallback(body: Record<string, unknown>): boolean {
  const inner = body.event as { type?: unknown } | undefined;
  return body.type === "event_callback" && inner?.type !== "function_executed";
}

function once(ack: () => Promise<void>): () => Promise<void> {
  let sent: Promise<void> | undefined;
  return () => {
    sent ??= ack();
    return sent;
  };
}
