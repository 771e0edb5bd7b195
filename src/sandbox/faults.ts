/** A planned failure for the next calls of one Web API method. */
export type Fault =
  | { kind: "rate_limited"; retryAfterSeconds: number }
  | { kind: "error"; error: string; extra?: Record<string, unknown> }
  | { kind: "http_status"; status: number };

/** A planned fault, optionally only for calls about one channel. */
type Planned = { fault: Fault; channel?: string };

/**
 * Fault injection for tests: the next `times` calls of a method answer HTTP 429 with `Retry-After`,
 * a Slack error (`{ ok: false, error }`), or a bare HTTP status. Faults of a method are used in order;
 * a rate limit may be planned for one channel's calls only (Slack counts `chat.postMessage` per channel).
 */
export class FaultPlan {
  private readonly planned = new Map<string, Planned[]>();
  private readonly absent = new Set<string>();

  /** Until `clear()`, these methods answer `unknown_method`, as in a workspace that lacks them. */
  withoutMethods(...methods: string[]): void {
    for (const m of methods) this.absent.add(m);
  }

  rateLimit(
    method: string,
    {
      times = 1,
      retryAfterSeconds = 1,
      channel,
    }: { times?: number; retryAfterSeconds?: number; channel?: string } = {},
  ): void {
    this.add(method, { kind: "rate_limited", retryAfterSeconds }, times, channel);
  }

  fail(
    method: string,
    error: string,
    { times = 1, extra }: { times?: number; extra?: Record<string, unknown> } = {},
  ): void {
    this.add(method, extra ? { kind: "error", error, extra } : { kind: "error", error }, times);
  }

  httpStatus(method: string, status: number, { times = 1 }: { times?: number } = {}): void {
    this.add(method, { kind: "http_status", status }, times);
  }

  /** The fault for this call of `method` (about `channel`), if one is planned (and uses it up). */
  take(method: string, channel?: string): Fault | undefined {
    if (this.absent.has(method)) return { kind: "error", error: "unknown_method" };
    const list = this.planned.get(method);
    const at = list?.findIndex((p) => p.channel === undefined || p.channel === channel) ?? -1;
    if (!list || at === -1) return undefined;
    const [taken] = list.splice(at, 1);
    if (list.length === 0) this.planned.delete(method);
    return taken!.fault;
  }

  clear(): void {
    this.planned.clear();
    this.absent.clear();
  }

  private add(method: string, fault: Fault, times: number, channel?: string): void {
    const list = this.planned.get(method) ?? [];
    for (let i = 0; i < times; i++) list.push(channel === undefined ? { fault } : { fault, channel });
    this.planned.set(method, list);
  }
}
