import { describe, expect, it } from "vitest";
import { emptyUsage } from "../../../src/agent/context/messages.ts";
import { resumeRun, runTurn } from "../../../src/agent/run/loop.ts";
import { type RunSnapshot, SNAPSHOT_VERSION } from "../../../src/agent/run/snapshot.ts";
import { parseRunSnapshot, RunSnapshotError } from "../../../src/agent/run/snapshot-schema.ts";
import { silentLogger } from "../../../src/core/logger.ts";
import {
  type Execution,
  fixtureTools,
  inProcessModel,
  testRegistry,
  testRun,
} from "../../helpers/runtime.ts";

const stored = {
  version: 1,
  run: { ...testRun, runId: "run_s", viewing: { channelId: "C0VIEW" } },
  messages: [
    { role: "user", content: "open a ticket", author: "U0USER1" },
    { role: "assistant", content: "", toolCalls: [{ id: "call_a", name: "create_ticket", arguments: "{}" }] },
  ],
  pending: [{ callId: "call_a", tool: "create_ticket", args: { title: "x" }, argsSha256: "hmac-sha256:ab" }],
  step: 1,
  usage: emptyUsage(),
  modelCalls: 1,
  failures: { create_ticket: 1 },
  truncations: 0,
  fallback: { model: "b", from: "a", reason: "primary_unavailable", step: 1 },
};

function errorOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe("run snapshot schema", () => {
  it("a stored snapshot of the current version loads as it was written (JSON round trip)", () => {
    expect(SNAPSHOT_VERSION).toBe(1);
    const parsed = parseRunSnapshot(JSON.parse(JSON.stringify(stored)));
    expect(parsed).toEqual(stored);
  });

  it("an unknown, newer or missing version is refused whole with one error naming it", () => {
    for (const [version, message] of [
      [2, "Run snapshot version 2 is not supported (expected 1)."],
      [0, "Run snapshot version 0 is not supported (expected 1)."],
      ["1", 'Run snapshot version "1" is not supported (expected 1).'],
      [undefined, "Run snapshot has no version (expected 1)."],
    ] as const) {
      const err = errorOf(() => parseRunSnapshot({ ...stored, version }));
      expect(err).toBeInstanceOf(RunSnapshotError);
      expect(err).toMatchObject({ message, version });
    }
    expect(errorOf(() => parseRunSnapshot(null))).toMatchObject({
      message: "Run snapshot has no version (expected 1).",
    });
  });

  it("a malformed snapshot of the current version is refused, naming the version and where", () => {
    const bad = { ...stored, messages: [{ role: "robot", content: "hi" }] };
    const err = errorOf(() => parseRunSnapshot(bad));
    expect(err).toBeInstanceOf(RunSnapshotError);
    expect(err).toMatchObject({
      message: expect.stringMatching(/^Run snapshot version 1 is malformed at messages\.0/),
    });
    expect(errorOf(() => parseRunSnapshot({ ...stored, step: -1 }))).toMatchObject({
      message: expect.stringMatching(/^Run snapshot version 1 is malformed at step: /),
    });
    expect(errorOf(() => parseRunSnapshot({ ...stored, run: { runId: "r" } }))).toBeInstanceOf(
      RunSnapshotError,
    );
  });

  it("a paused run's own snapshot resumes; one of a newer version does not run anything", async () => {
    const executions: Execution[] = [];
    const { registry } = testRegistry(fixtureTools(executions));
    const { model } = inProcessModel([
      { toolCalls: [{ id: "call_a", name: "create_ticket", arguments: JSON.stringify({ title: "VPN" }) }] },
      { content: "Done." },
    ]);
    const deps = {
      model,
      registry,
      logger: silentLogger(),
      policy: async () => ({ action: "needs_approval" as const, reason: "asks" }),
    };
    const paused = await runTurn({ run: testRun, history: [], userMessage: "open a ticket" }, deps);
    expect(paused.status).toBe("paused");
    const snapshot = paused.snapshot;
    if (!snapshot) throw new Error("a paused run has a snapshot");
    // As a store would hand it over: JSON read back, typed by the column.
    const newer: RunSnapshot = JSON.parse(JSON.stringify({ ...snapshot, version: 2 }));
    await expect(resumeRun(newer, { call_a: { status: "approved" } }, deps)).rejects.toThrow(
      "Run snapshot version 2 is not supported (expected 1).",
    );
    expect(executions).toEqual([]);
    const resumed = await resumeRun(
      JSON.parse(JSON.stringify(snapshot)),
      { call_a: { status: "approved" } },
      deps,
    );
    expect(resumed.status).toBe("completed");
    expect(executions.map((e) => e.name)).toEqual(["create_ticket"]);
  });
});
