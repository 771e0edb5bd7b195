import { describe, expect, it } from "vitest";
import type { RunSnapshot } from "../../src/agent/run/snapshot.ts";
import { silentLogger } from "../../src/core/logger.ts";
import type { TurnJobMeta } from "../../src/queue/jobs.ts";
import { failTurn, openTurn, startTurn, type Turn } from "../../src/queue/turn.ts";
import type { ProgressDisplay, ReplyTarget, StatusDisplay } from "../../src/queue/turn-output.ts";
import type { RunRecord } from "../../src/store/run-store.ts";
import type { RunStatus } from "../../src/store/schema.ts";
import { turnJob } from "../helpers/redis-queue.ts";

const statusLine: StatusDisplay = {
  show: () => undefined,
  close: async () => undefined,
  clear: async () => undefined,
};

/** A working message that went out as `7.7` (once closed), noting what happened to it. */
function workingMessage(log: string[]): ProgressDisplay {
  let closed = false;
  return {
    show: () => undefined,
    close: async () => {
      closed = true;
      log.push("closed");
    },
    workingTs: () => (closed ? "7.7" : undefined),
    discard: async () => void log.push("discarded"),
  };
}

function opened(meta?: TurnJobMeta) {
  const statusAsked: string[] = [];
  const workingAsked: Array<{ channel: string; threadTs: string; ts?: string | undefined }> = [];
  const working: string[] = [];
  const output = {
    assistantStatus: (o: { channel: string }) => {
      statusAsked.push(o.channel);
      return statusLine;
    },
    progress: (o: { channel: string; threadTs: string; ts?: string | undefined }) => {
      workingAsked.push({ channel: o.channel, threadTs: o.threadTs, ts: o.ts });
      return workingMessage(working);
    },
  };
  const turn: Turn = openTurn({ output }, turnJob(meta ? { meta } : {}), silentLogger());
  return { turn, statusAsked, workingAsked, working };
}

function record(runId: string, status: RunStatus): RunRecord {
  const snapshot: RunSnapshot = {
    version: 1,
    run: { runId, sessionKey: "T1:C1:1.0", userId: "U1" },
    messages: [],
    pending: [],
    step: 2,
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0, requests: 2 },
    modelCalls: 2,
    failures: {},
    truncations: 0,
  };
  const at = new Date();
  return {
    runId,
    sessionKey: "T1:C1:1.0",
    userId: "U1",
    status,
    snapshot,
    eventId: "Ev1",
    createdAt: at,
    updatedAt: at,
  };
}

const checks = (finished: boolean, earlier?: RunRecord) => ({
  checks: Promise.resolve<[boolean, RunRecord | undefined]>([finished, earlier]),
});

/** Storage and output that note what the failure path wrote and said. */
function failureSinks() {
  const said: string[] = [];
  const events: string[] = [];
  const runs: string[] = [];
  const targets: ReplyTarget[] = [];
  return {
    said,
    events,
    runs,
    targets,
    s: {
      storage: {
        events: { finish: async (id: string, status: string) => void events.push(`${id}:${status}`) },
        runs: {
          finish: async (id: string, status: string) => {
            runs.push(`${id}:${status}`);
            return true;
          },
        },
      },
      output: {
        postAnswer: async (text: string, target: ReplyTarget) => {
          said.push(text);
          targets.push(target);
        },
      },
    },
  };
}

describe("a turn's life cycle", () => {
  it("opens with a fresh run id, its reply target, and a working message, or a status line for an assistant thread", () => {
    const plain = opened({ placeholderTs: "9.9" });
    expect(plain.turn.target).toMatchObject({ placeholderTs: "9.9", channel: plain.turn.job.channelId });
    expect(plain.turn.status).toBeUndefined();
    // The working message is asked for as the worker takes the job (here: the one already posted).
    expect(plain.workingAsked).toEqual([
      { channel: plain.turn.job.channelId, threadTs: plain.turn.job.threadTs, ts: "9.9" },
    ]);
    expect(plain.turn.run).toMatchObject({ running: false, mayHaveActed: false });
    const assistant = opened({ assistantThread: true });
    expect(assistant.turn.status).toBe(statusLine);
    expect(assistant.turn.progress).toBe(statusLine);
    expect(assistant.statusAsked).toEqual([assistant.turn.job.channelId]);
    expect(assistant.workingAsked).toEqual([]);
    expect(opened().turn.run.id).not.toBe(plain.turn.run.id);
  });

  it("starts as new, a duplicate, an ended run shown again, or a dead worker's run continued under its id", async () => {
    const fresh = opened().turn;
    const id = fresh.run.id;
    expect(await startTurn(fresh, checks(false))).toEqual({ kind: "new" });
    expect(fresh.run.id).toBe(id);
    expect(await startTurn(opened().turn, checks(true, record("R0", "running")))).toEqual({
      kind: "duplicate",
    });
    const ended = opened().turn;
    expect(await startTurn(ended, checks(false, record("R1", "completed")))).toMatchObject({ kind: "ended" });
    expect(ended.run.id).toBe("R1");
    const continued = opened().turn;
    expect(await startTurn(continued, checks(false, record("R2", "running")))).toMatchObject({
      kind: "continue",
    });
    expect(continued.run.id).toBe("R2");
  });

  it("fails before its run began: the event failed, no run ended, and the sentence says nothing was done", async () => {
    const { turn, working } = opened();
    const sinks = failureSinks();
    await failTurn(sinks.s, turn, new Error("boom"));
    // The sentence replaces the working message that went out (closed first, so no update follows it).
    expect(working).toEqual(["closed"]);
    expect(sinks.targets[0]).toMatchObject({ placeholderTs: "7.7" });
    expect(sinks.events).toEqual([`${turn.job.eventId}:failed`]);
    expect(sinks.runs).toEqual([]);
    expect(sinks.said).toHaveLength(1);
    expect(sinks.said[0]).toContain(turn.run.id);
    expect(sinks.said[0]).toContain("could not finish this request");
  });

  it("fails while running a run that may have acted: the run ends failed and the sentence never says nothing was done", async () => {
    const { turn } = opened();
    turn.run.running = true;
    turn.run.mayHaveActed = true;
    const sinks = failureSinks();
    await failTurn(sinks.s, turn, new Error("boom"));
    expect(sinks.runs).toEqual([`${turn.run.id}:failed`]);
    expect(sinks.said[0]).toContain("may or may not have taken effect");
  });
});
