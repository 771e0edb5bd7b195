import { describe, expect, it } from "vitest";
import type { PendingCall } from "../../src/agent/run/snapshot.ts";
import { decideInTerminal } from "../../src/cli/terminal-approvals.ts";

const call = (callId: string, tool: string): PendingCall => ({
  callId,
  tool,
  args: { to: "U0WANGLEI", text: "hi" },
  argsSha256: `sha-${callId}`,
});

describe("decideInTerminal: approvals for npm run agent", () => {
  it("--approve approves every pending call, bound to its arguments, without asking", async () => {
    const printed: string[] = [];
    const decisions = await decideInTerminal([call("a", "send_message"), call("b", "delete_ticket")], {
      approveAll: true,
      userId: "U0USER1",
      ask: () => Promise.reject(new Error("asked")),
      print: (l) => printed.push(l),
    });
    expect(decisions).toEqual({
      a: { status: "approved", by: "U0USER1", argsSha256: "sha-a" },
      b: { status: "approved", by: "U0USER1", argsSha256: "sha-b" },
    });
    expect(printed).toEqual([]);
  });

  it("a terminal is asked once per call; only yes approves", async () => {
    const questions: string[] = [];
    const answers = ["y", "no"];
    const decisions = await decideInTerminal([call("a", "send_message"), call("b", "send_message")], {
      approveAll: false,
      userId: "U0USER1",
      ask: async (q) => {
        questions.push(q);
        return answers.shift() ?? "";
      },
      print: () => undefined,
    });
    expect(questions[0]).toBe('approve send_message {"to":"U0WANGLEI","text":"hi"}? [y/N] ');
    expect(decisions.a?.status).toBe("approved");
    expect(decisions.b).toEqual({ status: "rejected", by: "U0USER1" });
  });

  it("without a terminal or --approve, nothing runs unapproved and the line says how to approve", async () => {
    const printed: string[] = [];
    const decisions = await decideInTerminal([call("a", "send_message")], {
      approveAll: false,
      userId: "U0USER1",
      print: (l) => printed.push(l),
    });
    expect(decisions).toEqual({ a: { status: "rejected", by: "U0USER1" } });
    expect(printed[0]).toContain("✗ not approved: send_message");
    expect(printed[0]).toContain("--approve");
  });
});
