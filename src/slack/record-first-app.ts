import { App, type AppOptions, type ReceiverEvent } from "@slack/bolt";
import { errorMessage } from "../errors.ts";
import type { Logger } from "../logger.ts";

/** Where listeners find what `record` made of their event, in Bolt's `context`. */
const RECORD_KEY = "hermesRecorded";

/** Writes an Events API callback down (durably, or decides it needs nothing). */
export type RecordEvent = (body: Record<string, unknown>) => Promise<unknown>;

export interface RecordFirstOptions {
  logger: Logger;
  record?: RecordEvent | undefined;
  /**
   * Awaited between the ack and Bolt's processing: Bolt's middleware and listeners run on the same
   * event loop as the acks of a burst still arriving, so they may wait until those are out.
   */
  afterAck?: (() => Promise<void>) | undefined;
}

/**
 * Bolt acks every Events API request before its middleware runs, so an acked event could still be
 * lost (the process dies before it is written down). Hermes acks an event once it is recorded
 * instead: this App first runs `record` on the callback (classify it; claim it in Postgres with its
 * turn job), then acks it, and only then hands it to Bolt, whose middleware and listeners find the
 * outcome with `recordedOf(context)` and do the rest (working message, enqueue) off the request path.
 * The ack waits for nothing but the record: not for Bolt's per-listener middleware, not for the
 * listeners' work, which can also be held back (`afterAck`) until a burst's acks are out. The same
 * over HTTP (the ack is the 200) and Socket Mode (the envelope's ack). Clicks, commands and
 * `function_executed` keep Bolt's own `ack`, which their listeners call.
 */
export class RecordFirstApp extends App {
  readonly #o: RecordFirstOptions;

  constructor(options: AppOptions, o: RecordFirstOptions) {
    super(options);
    this.#o = o;
  }

  override async processEvent(event: ReceiverEvent): Promise<void> {
    if (!isEventsApiCallback(event.body)) return super.processEvent(event);
    const recorded = await this.#o.record?.(event.body).catch((err: unknown) => {
      this.#o.logger.error(
        { err: errorMessage(err), eventId: event.body.event_id },
        "could not record a Slack event",
      );
      return undefined;
    });
    try {
      await event.ack();
    } catch (err) {
      this.#o.logger.warn(
        { err: errorMessage(err), eventId: event.body.event_id },
        "could not ack a Slack event",
      );
    }
    await this.#o.afterAck?.();
    await super.processEvent({
      ...event,
      ack: async () => undefined,
      customProperties: { ...event.customProperties, [RECORD_KEY]: recorded },
    });
  }
}

/** What `record` returned for the event `context` belongs to (undefined: not recorded before Bolt). */
export function recordedOf(context: Record<string, unknown>): unknown {
  return context[RECORD_KEY];
}

function isEventsApiCallback(body: Record<string, unknown>): boolean {
  const inner = body.event as { type?: unknown } | undefined;
  return body.type === "event_callback" && inner?.type !== "function_executed";
}
