import { Gauge, type Registry } from "prom-client";

/** What the gauges read at scrape time. */
export interface GaugeSources {
  /** Jobs by state in this deployment's queue (BullMQ: the shared queue; in-process: this process's). */
  queueCounts(): Promise<{ waiting: number; delayed: number; active: number }>;
  /** When the oldest waiting job was enqueued and the oldest active one started (epoch ms). */
  queueOldest?(): Promise<{ waiting?: number | undefined; active?: number | undefined }>;
  /** Approvals still pending (one count query). */
  pendingApprovals?(): Promise<number>;
}

/** The pending-approvals count is read at most this often, however often Prometheus scrapes. */
export const PENDING_APPROVALS_CACHE_MS = 5_000;

/**
 * Gauges read when scraped, not kept current on the hot path: queue depth and oldest job age, and
 * pending approvals (cached a few seconds). A source that fails leaves its gauge out of that scrape
 * (the scrape itself still answers).
 */
export function registerLiveGauges(registry: Registry, sources: GaugeSources): void {
  const registers = [registry];
  new Gauge({
    name: "hermes_queue_jobs",
    help: "Turn jobs in the queue, by state (waiting, delayed for a retry, active).",
    labelNames: ["state"] as const,
    registers,
    async collect() {
      this.reset();
      const c = await sources.queueCounts().catch(() => undefined);
      if (!c) return;
      this.set({ state: "waiting" }, c.waiting);
      this.set({ state: "delayed" }, c.delayed);
      this.set({ state: "active" }, c.active);
    },
  });
  const oldest = sources.queueOldest;
  if (oldest) {
    new Gauge({
      name: "hermes_queue_oldest_job_age_seconds",
      help: "Age of the oldest waiting job (since enqueued) and the oldest active one (since started); 0 when none.",
      labelNames: ["state"] as const,
      registers,
      async collect() {
        this.reset();
        const o = await oldest().catch(() => undefined);
        if (!o) return;
        const now = Date.now();
        this.set({ state: "waiting" }, o.waiting === undefined ? 0 : Math.max(0, now - o.waiting) / 1000);
        this.set({ state: "active" }, o.active === undefined ? 0 : Math.max(0, now - o.active) / 1000);
      },
    });
  }
  const pending = sources.pendingApprovals;
  if (pending) {
    let cached: { at: number; value: Promise<number> } | undefined;
    new Gauge({
      name: "hermes_approvals_pending",
      help: `Approvals waiting for a decision (read at most every ${PENDING_APPROVALS_CACHE_MS / 1000} s).`,
      registers,
      async collect() {
        const now = Date.now();
        if (!cached || now - cached.at >= PENDING_APPROVALS_CACHE_MS) {
          const value = pending();
          value.catch(() => undefined);
          cached = { at: now, value };
        }
        const current = cached;
        const n = await current.value.catch(() => undefined);
        if (n === undefined) {
          // A failed read is not kept: the next scrape asks again.
          if (cached === current) cached = undefined;
          this.reset();
          return;
        }
        this.set(n);
      },
    });
  }
}
