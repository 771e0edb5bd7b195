import type { App, ReceiverEvent } from "@slack/bolt";
import { errorMessage } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";

/** Where listeners find what `record` made of their event, in Bolt's `context`. */
const RECORD_KEY = "hermesRecorded";

/** Writes an Events API callback down (durably, or decides it needs nothing). */
export type RecordEvent = (body: Record<string, unknown>) => Promise<unknown>;

/** What the receivers do with Events API callbacks (`createEventIntake` in `event-listeners.ts`). */
export interface IntakeEvents {
  record: RecordEvent;
  /** See `RecordFirstOptions.afterAck`. */
  afterAck?: () => Promise<void>;
  /**
   * HTTP mode: called as a request to `/slack/events` comes in; the function it returns, once that
   * request is answered. Follow-up work waits only while an answer is pending.
   */
  arriving?: () => () => void;
}

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
 * How the receivers hand a request to the App. Bolt's `App.processEvent` acks every Events API
 * callback before its middleware runs, so an acked event could still be lost (the process dies before
 * it is written down). Hermes acks an event once it is recorded instead: `record` runs on the callback
 * first (classify it; claim it in Postgres with its turn job), then the event is acked, and only then
 * handed to the App with a no-op ack; its middleware and listeners find the outcome with
 * `recordedOf(context)` and do the rest (working message, enqueue) off the request path. The ack waits
 * for nothing but the record, and the listeners' work can also be held back (`afterAck`) until a
 * burst's acks are out. Clicks, commands and `function_executed` go to the App as they came, with
 * the receiver's `ack`, which their listeners call.
 */
export async function processRecordFirst(
  app: Pick<App, "processEvent">,
  event: ReceiverEvent,
  o: RecordFirstOptions,
): Promise<void> {
  if (!isEventsApiCallback(event.body)) return app.processEvent(event);
  const recorded = await o.record?.(event.body).catch((err: unknown) => {
    o.logger.error(
      { err: errorMessage(err), eventId: event.body.event_id },
      "could not record a Slack event",
    );
    return undefined;
  });
  try {
    await event.ack();
  } catch (err) {
    o.logger.warn({ err: errorMessage(err), eventId: event.body.event_id }, "could not ack a Slack event");
  }
  await o.afterAck?.();
  await app.processEvent({
    ...event,
    ack: async () => undefined,
    customProperties: { ...event.customProperties, [RECORD_KEY]: recorded },
  });
}

/** What `record` returned for the event `context` belongs to (undefined: not recorded before Bolt). */
export function recordedOf(context: Record<string, unknown>): unknown {
  return context[RECORD_KEY];
}

/** An Events API callback Hermes acks itself: every one but `function_executed`, whose listener acks. */
export function isEventsApiCallback(body: Record<string, unknown>): boolean {
  const inner = body.event as { type?: unknown } | undefined;
  return body.type === "event_callback" && inner?.type !== "function_executed";
}
