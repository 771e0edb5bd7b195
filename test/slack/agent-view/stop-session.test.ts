import type { WebClient } from "@slack/web-api";
import { describe, expect, it } from "vitest";
import type { Config } from "../../../src/config.ts";
import { silentLogger } from "../../../src/core/logger.ts";
import type { RunStops } from "../../../src/queue/run-stops.ts";
import type { TurnQueue } from "../../../src/queue/turn-queue.ts";
import { type StopDeps, stopAgentSession } from "../../../src/slack/agent-view/stop-session.ts";

/** Stop's deps with a recording client and run stops, and no run waiting for approval. */
function deps() {
  const statuses: Array<Record<string, unknown>> = [];
  const requested: string[] = [];
  const client = {
    agents: {
      sessions: {
        setStatus: async (args: Record<string, unknown>) => {
          statuses.push(args);
          return { ok: true };
        },
      },
    },
  } as unknown as WebClient;
  const stops: RunStops = {
    request: async (key) => {
      requested.push(key);
    },
    watch: () => ({ signal: new AbortController().signal, dispose: () => undefined }),
    close: async () => undefined,
  };
  const s = {
    config: {} as Config,
    logger: silentLogger(),
    runtime: { registry: {} },
    slack: { client, redactor: {} },
    storage: { runs: { latestPausedForSession: async () => undefined }, approvals: {}, users: {} },
    queue: {} as TurnQueue,
    stops,
  } as unknown as StopDeps;
  return { s, statuses, requested };
}

describe("stopAgentSession", () => {
  it("in the person's DM: asks the thread's run to stop and closes the session", async () => {
    const { s, statuses, requested } = deps();
    await stopAgentSession(s, {
      teamId: "T0001",
      channel: "D0USER1",
      threadTs: "1.000100",
      userId: "U0USER1",
      streamingTs: [],
    });
    expect(requested).toEqual(["T0001:D0USER1:1.000100"]);
    expect(statuses).toEqual([{ channel_id: "D0USER1", thread_ts: "1.000100", status: "closed" }]);
  });

  it("outside a DM (where anyone could click): ignored", async () => {
    const { s, statuses, requested } = deps();
    await stopAgentSession(s, {
      teamId: "T0001",
      channel: "C0OPS",
      threadTs: "1.000100",
      userId: "U0WANGLEI",
      streamingTs: [],
    });
    expect(requested).toEqual([]);
    expect(statuses).toEqual([]);
  });
});
