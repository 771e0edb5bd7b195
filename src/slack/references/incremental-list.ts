import { errorMessage } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import type { LoadedList } from "../../tools/slack-port.ts";
import { nextRelistDelay, type RelistSchedule } from "./relist-schedule.ts";

/** One page of a Slack list from `cursor` ("" first): its items and the next cursor ("" at the end). */
export type FetchPage<T> = (cursor: string) => Promise<{ items: T[]; next: string }>;

export interface IncrementalListOptions {
  /** The Slack method, for logs and failures: `users.list`. */
  method: string;
  /** After a failed page: wait this long (doubled each time, at most `maxRetryMs`) and ask again. */
  retryMs?: number;
  maxRetryMs?: number;
  relist?: RelistSchedule;
  logger?: Logger;
  now?: () => number;
  /** Called after every page, the end of the list, a failure and every upsert or removal. */
  onChange?: () => void;
}

/**
 * A Slack list (people, channels, user groups) loaded page by page in the background, one page at a
 * time (the client paces each to its tier), and served as far as it has loaded: readers never wait
 * for Slack. The first read starts the loading. A failed page is asked again later from the same
 * cursor; what is loaded stays. Once complete, the list is kept fresh by `upsert` and `remove`
 * (Slack's events), and listed again in full only on `relist`'s schedule (every few hours, in quiet
 * hours if asked), into a fresh copy that replaces the served one when its last page lands, so
 * people and channels gone without an event drop out. Events during a re-list go to both copies.
 */
export class IncrementalList<T extends { id: string }> {
  private items = new Map<string, T>();
  private relisting: Map<string, T> | undefined;
  private served: readonly T[] | undefined;
  private complete = false;
  private failure: string | undefined;
  private started = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly fetchPage: FetchPage<T>;
  private readonly o: IncrementalListOptions;
  /** Pages fetched, failures included: what a test or a log line counts. */
  pagesFetched = 0;

  constructor(fetchPage: FetchPage<T>, options: IncrementalListOptions) {
    this.fetchPage = fetchPage;
    this.o = options;
  }

  /** What is loaded, at once; the first read starts the loading. */
  read(): LoadedList<T> {
    this.start();
    this.served ??= [...this.items.values()];
    return {
      items: this.served,
      complete: this.complete,
      ...(this.failure && !this.complete ? { failure: this.failure } : {}),
    };
  }

  get(id: string): T | undefined {
    return this.items.get(id);
  }

  /** Starts loading, if not started yet. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    void this.fill(this.items, "", this.o.retryMs ?? 5_000);
  }

  /** A person or channel an event describes, added or replaced. */
  upsert(item: T): void {
    this.items.set(item.id, item);
    this.relisting?.set(item.id, item);
    this.changed();
  }

  /** Changes a loaded item (a rename); nothing when it is not loaded. */
  update(id: string, change: (item: T) => T): void {
    const item = this.items.get(id);
    if (item) this.items.set(id, change(item));
    const pending = this.relisting?.get(id);
    if (pending) this.relisting?.set(id, change(pending));
    if (item || pending) this.changed();
  }

  remove(id: string): void {
    const had = this.items.delete(id);
    const pending = this.relisting?.delete(id);
    if (had || pending) this.changed();
  }

  /** Stops loading and re-listing (a process shutting down, a test's end). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private changed(): void {
    this.served = undefined;
    this.o.onChange?.();
  }

  private async fill(into: Map<string, T>, cursor: string, retryMs: number): Promise<void> {
    let next = cursor;
    try {
      do {
        if (this.stopped) return;
        const page = await this.fetchPage(next);
        this.pagesFetched++;
        for (const item of page.items) into.set(item.id, item);
        next = page.next;
        this.failure = undefined;
        if (into === this.items) this.changed();
      } while (next);
    } catch (err) {
      this.pagesFetched++;
      this.failure = describeFailure(err);
      this.o.logger?.warn(
        { err: this.failure, method: this.o.method, loaded: into.size },
        "workspace directory: a page failed; it is asked again later",
      );
      if (into === this.items) this.changed();
      const max = this.o.maxRetryMs ?? 5 * 60_000;
      this.later(retryMs, () => this.fill(into, next, Math.min(retryMs * 2, max)));
      return;
    }
    if (into !== this.items) {
      this.items = into;
      this.relisting = undefined;
    }
    this.complete = true;
    this.changed();
    this.later(nextRelistDelay((this.o.now ?? Date.now)(), this.o.relist), () => this.relist());
  }

  private relist(): Promise<void> {
    this.relisting = new Map();
    return this.fill(this.relisting, "", this.o.retryMs ?? 5_000);
  }

  private later(ms: number, run: () => Promise<void>): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void run(), ms);
    this.timer.unref();
  }
}

/** Slack's error code (`ratelimited`, `invalid_auth`, …) or a short description, never a URL. */
function describeFailure(err: unknown): string {
  if (typeof err === "object" && err !== null) {
    const e = err as { code?: unknown; data?: { error?: unknown } };
    if (typeof e.data?.error === "string") return e.data.error;
    if (e.code === "slack_webapi_rate_limited_error") return "ratelimited";
    if (e.code === "slack_webapi_request_error") return "Slack could not be reached";
    if (typeof e.code === "string" && e.code.startsWith("slack_webapi_"))
      return e.code.replace("slack_webapi_", "");
  }
  return errorMessage(err);
}
