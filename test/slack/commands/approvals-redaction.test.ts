import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/logger.ts";
import type { Approval } from "../../../src/policy/approval-store.ts";
import { createRedactor } from "../../../src/policy/redact.ts";
import { createSecretValues } from "../../../src/policy/secret-values.ts";
import { approvalsMessage } from "../../../src/slack/commands/approvals-blocks.ts";
import { toCardApproval } from "../../../src/slack/deliver-result.ts";
import { homeView } from "../../../src/slack/home/home-view.ts";
import { ToolRegistry } from "../../../src/tools/registry.ts";
import { createMemoryResultStore } from "../../../src/tools/result-store.ts";

const SECRET = "corp-deploy-key-5f1c9a7e3b";

const approval = {
  id: "apr_1",
  status: "pending",
  tool: "send_message",
  args: { to: "<@U0WANGLEI>", text: `the deploy key is ${SECRET}` },
  argsSha256: "x",
  requesterId: "U0USER1",
  sessionKey: "T:C0OPS:1.1",
  runId: "r1",
  toolCallId: "c1",
  teamId: "T",
  channelId: "C0OPS",
  threadTs: "1.1",
  approvers: "requester_or_admin",
  createdAt: new Date(),
  expiresAt: new Date(Date.now() + 60_000),
  decidedBy: null,
  decidedAt: null,
  cardChannel: null,
  cardTs: null,
  reason: null,
} as unknown as Approval;

/** Copies of a card (`/hermes approvals`, App Home) show what the card in the thread shows: no configured secret. */
describe("approval card copies lose configured secret values", () => {
  const s = {
    registry: new ToolRegistry({ results: createMemoryResultStore(), logger: silentLogger() }),
    redactor: createRedactor({ secrets: createSecretValues([SECRET]) }),
  };
  const toCard = (a: Approval) => toCardApproval(s, a);

  it("/hermes approvals", () => {
    const text = JSON.stringify(approvalsMessage([approval], toCard));
    expect(text).toContain("the deploy key is");
    expect(text).not.toContain(SECRET);
  });

  it("an admin's App Home", () => {
    const view = homeView({
      access: { userId: "U0ADMIN", level: "admin", allowed: new Set() },
      tools: [],
      recent: [],
      toCard,
      now: new Date(),
      admin: { approvals: [approval], audit: [], schedules: undefined },
    });
    const text = JSON.stringify(view);
    expect(text).toContain("the deploy key is");
    expect(text).not.toContain(SECRET);
  });
});
