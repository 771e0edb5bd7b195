import { type WebAPICallResult, WebClient, type WebClientOptions } from "@slack/web-api";
import { tracing } from "../../core/tracing.ts";
import { type CallScheduler, type Lane, retryAfterSeconds } from "./call-scheduler.ts";
import { channelOf, rateKeyOf } from "./tiers.ts";

export interface PacedWebClientOptions extends WebClientOptions {
  scheduler: CallScheduler;
  /** `deliver` for the bot's client, `progress` for updates whose latest text is all that matters. */
  lane: Lane;
  /** Multiplies Slack's published rates (tests against a faster emulator); 1 by default. */
  rateScale?: number;
  /**
   * The token of each call, asked as it is sent (OAuth installs: rotated tokens are refreshed there);
   * the constructor's token otherwise.
   */
  tokenSource?: () => Promise<string>;
}

/**
 * The Web API client with every call routed through a shared `CallScheduler`: calls wait for their
 * budget (method, and channel for `chat.postMessage`) instead of being sent into a 429, and a 429
 * pauses that budget alone. The stock client's own 429 handling (pause the whole queue, retry) is off
 * (`rejectRateLimitedCalls`); its retries of network errors and 5xx stay as configured.
 * `filesUploadV2` is paced too: its `files.*` calls go through `apiCall`.
 */
export class PacedWebClient extends WebClient {
  readonly scheduler: CallScheduler;
  readonly lane: Lane;
  readonly rateScale: number;
  readonly #tokenSource: (() => Promise<string>) | undefined;

  constructor(token: string | undefined, options: PacedWebClientOptions) {
    const { scheduler, lane, rateScale, tokenSource, ...web } = options;
    super(token, { ...web, rejectRateLimitedCalls: true });
    this.scheduler = scheduler;
    this.lane = lane;
    this.rateScale = rateScale ?? 1;
    this.#tokenSource = tokenSource;
  }

  /** The token the next call goes with (a source's, refreshed when due; else the constructor's). */
  async currentToken(): Promise<string | undefined> {
    return this.#tokenSource ? this.#tokenSource() : this.token;
  }

  /** The stock client's call, with the token of the moment when a source gives one. */
  async #send(method: string, options: Record<string, unknown>): Promise<WebAPICallResult> {
    const source = this.#tokenSource;
    if (!source || options.token !== undefined) return super.apiCall(method, options);
    return super.apiCall(method, { ...options, token: await source() });
  }

  override apiCall(method: string, options: Record<string, unknown> = {}): Promise<WebAPICallResult> {
    // The v2 upload helper is not a Web API method: its own calls come back through here.
    if (method === "files.uploadV2") return super.apiCall(method, options);
    return this.paced(method, options, {});
  }

  /**
   * A deliver call that does not wait out a 429 (it fails at once, with `retryAfter`) nor wait for its
   * budget longer than `maxWaitMs` (it fails with `SlackCallDropped` "too_late"): for a caller that has
   * something better to do than wait, e.g. post an answer instead of replacing a message.
   */
  callOnce(
    method: string,
    options: Record<string, unknown>,
    { maxWaitMs }: { maxWaitMs?: number } = {},
  ): Promise<WebAPICallResult> {
    return this.paced(method, options, { lane: "deliver", rateLimitRetries: 0, maxWaitMs });
  }

  /** How long a call of `method` with these arguments would wait for its budget if made now. */
  expectedWaitMs(method: string, options: Record<string, unknown>): number {
    return this.scheduler.expectedWaitMs(rateKeyOf(method, options, this.rateScale).key);
  }

  /** Drops a progress update of this message still waiting for its budget (its final text follows). */
  cancelProgress(method: string, options: Record<string, unknown>): void {
    this.scheduler.cancelProgress(rateKeyOf(method, options, this.rateScale).key, messageId(method, options));
  }

  private paced(
    method: string,
    options: Record<string, unknown>,
    how: { lane?: Lane; rateLimitRetries?: number; maxWaitMs?: number | undefined },
  ): Promise<WebAPICallResult> {
    const { key, pace } = rateKeyOf(method, options, this.rateScale);
    const lane = how.lane ?? this.lane;
    const schedule = (run: () => Promise<WebAPICallResult>) =>
      this.scheduler.schedule({
        key,
        pace,
        lane,
        ...(lane === "progress" ? { coalesceId: messageId(method, options) } : {}),
        ...(how.rateLimitRetries === undefined ? {} : { rateLimitRetries: how.rateLimitRetries }),
        ...(how.maxWaitMs === undefined ? {} : { maxWaitMs: how.maxWaitMs }),
        run,
      });
    if (!tracing().enabled) return schedule(() => this.#send(method, options));
    return this.traced(method, options, { key, lane }, schedule);
  }

  /** The call in a client span: its method, budget (rate key, expected wait, lane) and the 429s it met. */
  private async traced(
    method: string,
    options: Record<string, unknown>,
    at: { key: string; lane: Lane },
    schedule: (run: () => Promise<WebAPICallResult>) => Promise<WebAPICallResult>,
  ): Promise<WebAPICallResult> {
    const span = tracing().startSpan(`slack ${method}`, {
      kind: "client",
      attributes: {
        "rpc.system": "slack_web_api",
        "rpc.method": method,
        "slack.channel.id": channelOf(options),
        "slack.rate.key": at.key,
        "slack.rate.lane": at.lane,
        "slack.rate.expected_wait_ms": Math.round(this.scheduler.expectedWaitMs(at.key)),
      },
    });
    let limited = 0;
    try {
      return await schedule(async () => {
        try {
          return await this.#send(method, options);
        } catch (err) {
          if (retryAfterSeconds(err) !== undefined) limited++;
          throw err;
        }
      });
    } catch (err) {
      const code = (err as { code?: unknown; data?: { error?: unknown } } | null) ?? undefined;
      span.fail(
        typeof code?.data?.error === "string" ? code.data.error : "slack call failed",
        typeof code?.code === "string" ? code.code : undefined,
      );
      throw err;
    } finally {
      span.setAttributes({ "slack.rate_limited.count": limited });
      span.end();
    }
  }
}

/**
 * One message's updates replace each other (`chat.update C0OPS 1700000000.000100`); a post in a
 * thread is named by its thread (`chat.postMessage C0OPS 1700000000.000050`).
 */
function messageId(method: string, options: Record<string, unknown>): string {
  const ts = options.ts ?? options.thread_ts;
  return `${method} ${channelOf(options)} ${typeof ts === "string" ? ts : "-"}`;
}

/** The client as a `PacedWebClient`, or undefined for a plain one (tests may hand one in). */
export function asPaced(client: WebClient): PacedWebClient | undefined {
  return client instanceof PacedWebClient ? client : undefined;
}
