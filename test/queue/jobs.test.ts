import { describe, expect, it } from "vitest";
import { JOB_ATTEMPTS, jobLogFields, parseQueueJob } from "../../src/queue/jobs.ts";
import { turnJob } from "../helpers/redis-queue.ts";

describe("queue jobs", () => {
  it("accepts each job type and drops unknown top-level keys (extras belong in meta)", () => {
    const turn = turnJob({ meta: { threadContext: ["earlier"] } });
    expect(parseQueueJob({ ...turn, extra: 1 })).toEqual({ ok: true, job: turn });
    const resume = { type: "resume", runId: "R1", reason: "expired" };
    expect(parseQueueJob(resume)).toEqual({ ok: true, job: resume });
  });

  it("rejects unknown types, missing fields and bad values, naming the field", () => {
    for (const data of [
      null,
      "turn",
      { type: "reminder" },
      { ...turnJob(), isDm: "no" },
      { type: "resume", runId: "R1", reason: "approved" },
      // Schedules fire through the scheduler, which enqueues turns: there is no schedule job.
      { type: "schedule", scheduleId: "S1", fireAt: "2026-11-29T10:00:00+08:00" },
    ]) {
      expect(parseQueueJob(data).ok).toBe(false);
    }
    const missing = parseQueueJob({ ...turnJob(), eventId: undefined });
    expect(missing.ok === false && missing.issues).toMatch(/eventId/);
  });

  it("checks a turn's meta by name, keeping keys it does not name", () => {
    const meta = { placeholderTs: "1.5", assistantThread: true, viewing: { channelId: "C9" }, later: 1 };
    const ok = parseQueueJob(turnJob({ meta }));
    expect(ok.ok && ok.job.type === "turn" && ok.job.meta).toEqual(meta);
    for (const bad of [{ placeholderTs: 15 }, { inThread: "yes" }, { viewing: { teamId: "T1" } }, "meta"]) {
      const parsed = parseQueueJob({ ...turnJob(), meta: bad });
      expect(parsed.ok === false && parsed.issues).toMatch(/meta/);
    }
  });

  it("retries only the jobs whose handlers are idempotent", () => {
    expect(JOB_ATTEMPTS).toEqual({ turn: 1, resume: 2 });
  });

  it("logs ids, never the message text", () => {
    const fields = jobLogFields(turnJob({ text: "my card is 4111 1111 1111 1111" }));
    expect(JSON.stringify(fields)).not.toContain("4111");
    expect(fields).toMatchObject({ jobType: "turn", sessionKey: expect.any(String) });
  });
});
