import { describe, expect, it } from "vitest";
import { validateBlocks } from "../../../src/sandbox/validate-blocks.ts";
import { blocksTextLength } from "../../../src/slack/commands/block-builders.ts";
import { runListMessage } from "../../../src/slack/commands/run-list-blocks.ts";
import { runTimelineMessage } from "../../../src/slack/commands/run-timeline-blocks.ts";
import type { RunDetail, RunStepRecord } from "../../../src/store/run-query.ts";

const start = new Date("2026-12-01T01:00:00Z");
function step(seq: number, over: Partial<RunStepRecord> = {}): RunStepRecord {
  return {
    seq,
    step: Math.ceil(seq / 2),
    kind: seq % 2 ? "model" : "tool",
    name: seq % 2 ? "gpt-x" : "search_tickets",
    status: "ok",
    startedAt: new Date(start.getTime() + seq * 100),
    durationMs: 90,
    promptTokens: seq % 2 ? 1000 : null,
    completionTokens: seq % 2 ? 50 : null,
    costUsd: seq % 2 ? 0.0011 : null,
    data:
      seq % 2
        ? { finishReason: "tool_calls" }
        : { args: { query: `<b>${"q".repeat(500)}` }, resultPreview: "r".repeat(300) },
    ...over,
  };
}
function detail(steps: RunStepRecord[]): RunDetail {
  return {
    runId: "run_long",
    sessionKey: "T1:C1:1.0",
    userId: "U0USER1",
    teamId: "T1",
    channelId: "C1",
    threadTs: "1.0",
    status: "stopped",
    stopReason: "max_steps",
    requestText: "find every <ticket> & summarise",
    models: ["gpt-x"],
    steps: steps.length,
    modelCalls: steps.length / 2,
    promptTokens: 1000,
    completionTokens: 50,
    costUsd: null,
    unpricedModels: ["gpt-x"],
    wallMs: 65_000,
    modelMs: 40_000,
    toolMs: 20_000,
    approvalWaitMs: 0,
    ownMs: 5000,
    createdAt: start,
    finishedAt: new Date(start.getTime() + 65_000),
    feedback: { up: 0, down: 1 },
    timeline: steps,
  };
}
const sections = (blocks: unknown[]) =>
  (blocks as Array<{ type: string; text?: { text: string } }>).filter((b) => b.type === "section");

describe("/hermes run timeline blocks", () => {
  it("a long run stays within Slack's limits and says how many steps it left out", () => {
    const message = runTimelineMessage(detail(Array.from({ length: 400 }, (_, i) => step(i + 1))));
    const blocks = message.blocks!;
    expect(validateBlocks(blocks, { maxBlocks: 50 })).toEqual([]);
    expect(blocks.length).toBeLessThanOrEqual(50);
    for (const s of sections(blocks)) expect(s.text!.text.length).toBeLessThanOrEqual(3000);
    expect(blocksTextLength(blocks)).toBeLessThan(12_000);
    const last = JSON.stringify(blocks.at(-1));
    expect(last).toMatch(/…\d+ more steps/);
    const text = JSON.stringify(blocks);
    expect(text).toContain("cost unknown");
    expect(text).toContain("stopped (max_steps)");
    // Stored text is escaped: a `<` in the request or args cannot make a mention or a link.
    expect(text).toContain("find every &lt;ticket&gt; &amp; summarise");
    expect(text).not.toContain("<b>");
  });

  it("a run with no steps yet, and an approval decided by someone, read as such", () => {
    const empty = runTimelineMessage(detail([]));
    expect(JSON.stringify(empty.blocks)).toContain("No steps recorded yet");
    const approved = runTimelineMessage(
      detail([
        step(1, {
          kind: "approval",
          name: "send_message",
          status: "approved",
          durationMs: 4200,
          data: { approvalId: "apr_1", decidedBy: "U0ADMIN" },
        }),
      ]),
    );
    expect(JSON.stringify(approved.blocks)).toContain(
      "approval send_message* — approved · decided by <@U0ADMIN> · approval apr_1 · waited 4.2s",
    );
  });

  it("the list of runs fits too, with feedback counts", () => {
    const runs = Array.from({ length: 100 }, (_, i) => ({ ...detail([]), runId: `run_${i}` }));
    const message = runListMessage(runs, {}, false);
    expect(validateBlocks(message.blocks!, { maxBlocks: 50 })).toEqual([]);
    for (const s of sections(message.blocks!)) expect(s.text!.text.length).toBeLessThanOrEqual(3000);
    expect(JSON.stringify(message.blocks)).toContain("👍 0 👎 1");
  });
});
