/** A planned failure for the next calls of one Web API method. */
export type Fault =
  | { kind: "rate_limited"; retryAfterSeconds: number }
  | { kind: "error"; error: string; extra?: Record<string, unknown> }
  | { kind: "http_status"; status: number };

/**
 * Fault injection for tests: the next `times` calls of a method answer HTTP 429 with `Retry-After`,
 * a Slack error (`{ ok: false, error }`), or a bare HTTP status. Faults of a method are used in order.
 */
export class FaultPlan {
  private readonly planned = new Map<string, Fault[]>();

  rateLimit(
    method: string,
    { times = 1, retryAfterSeconds = 1 }: { times?: number; retryAfterSeconds?: number } = {},
  ): void {
    this.add(method, { kind: "rate_limited", retryAfterSeconds }, times);
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

  /** The fault for this call of `method`, if one is planned (and uses it up). */
  take(method: string): Fault | undefined {
    const list = this.planned.get(method);
    const fault = list?.shift();
    if (list && list.length === 0) this.planned.delete(method);
    return fault;
  }

  clear(): void {
    this.planned.clear();
  }

  private add(method: string, fault: Fault, times: number): void {
    const list = this.planned.get(method) ?? [];
    for (let i = 0; i < times; i++) list.push(fault);
    this.planned.set(method, list);
  }
}
