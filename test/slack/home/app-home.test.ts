import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Approval } from "../../../src/policy/approval-store.ts";
import { DEMO } from "../../../src/sandbox/seed-demo-workspace.ts";
import type { SandboxView } from "../../../src/sandbox/workspace-types.ts";
import { registerAppHome } from "../../../src/slack/home/app-home.ts";
import {
  type BoltHarness,
  blocksText,
  buttonsOf,
  eventually,
  failedCalls,
  startBoltHarness,
} from "../../helpers/bolt-app.ts";

let h: BoltHarness;
let pending: Approval;
/** The emulator's workspace: the Home shows only its rows (core/tenant.ts). */
const TEAM = "T0001";

beforeAll(async () => {
  h = await startBoltHarness((app, services, schedules) => registerAppHome(app, services, { schedules }));
  const { audit } = h.services.storage;
  for (let i = 1; i <= 12; i++) {
    await audit.append({
      action: "tool.requested",
      tool: "create_ticket",
      userId: DEMO.user,
      teamId: TEAM,
      args: { title: `mine ${i}` },
    });
    await audit.append({
      action: "tool.executed",
      tool: "create_ticket",
      userId: DEMO.user,
      teamId: TEAM,
      args: { title: `mine ${i}` },
    });
  }
  await audit.append({
    action: "tool.requested",
    tool: "search_tickets",
    userId: DEMO.wangLei,
    teamId: TEAM,
    args: { query: "theirs" },
  });
  pending = await h.services.storage.approvals.create({
    tool: "send_message",
    args: { to: DEMO.wangLei, text: "lunch?" },
    requesterId: DEMO.user,
    sessionKey: "T0001:C0OPS:1764420000.000100",
    runId: "run_1",
    toolCallId: "call_1",
    channelId: DEMO.ops,
    teamId: TEAM,
  });
  await h.schedules.add({
    cron: "0 9 * * 1-5",
    channelId: DEMO.ops,
    prompt: "summarize urgent tickets",
    ownerId: DEMO.admin,
    teamId: TEAM,
  });
});

afterAll(() => h.stop());

beforeEach(() => {
  h.emulator.clearCalls();
});

async function openHome(user: string): Promise<SandboxView> {
  const delivery = await h.sender.appHomeOpened({ user });
  expect(delivery.status).toBe(200);
  await eventually(() => (h.emulator.callsTo("views.publish").some((c) => c.response) ? true : undefined));
  expect(failedCalls(h.emulator)).toEqual([]);
  const [call] = h.emulator.callsTo("views.publish");
  expect(call?.args.user_id).toBe(user);
  const view = h.emulator.workspace.getView(user);
  if (!view) throw new Error("no view published");
  expect(view.type).toBe("home");
  expect(view.blocks.length).toBeLessThanOrEqual(100);
  return view;
}

const headers = (view: SandboxView) =>
  (view.blocks as Array<{ type: string; text?: { text: string } }>)
    .filter((b) => b.type === "header")
    .map((b) => b.text?.text);

describe("App Home", () => {
  it("a user sees their tools and their last 10 requests, nothing for admins", async () => {
    const view = await openHome(DEMO.user);
    expect(headers(view)).toEqual(["Hermes", "What I can do for you", "Your recent requests"]);
    const text = blocksText(view.blocks);
    expect(text).toContain("• `create_ticket` — user · no approval");
    expect(text).toContain("• `send_message` — user · *needs approval*");
    expect(text).not.toContain("delete_ticket");
    const requests = [
      ...text.matchAll(/\*requested\* · `create_ticket` · <@U0USER1> · `\{"title":"mine (\d+)"\}`/g),
    ];
    expect(requests.map((m) => Number(m[1]))).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3]);
    expect(text).not.toContain("theirs");
    expect(text).not.toContain("*executed*");
    // Their own pending approval is not shown here (admins' section only); no buttons at all.
    expect(buttonsOf(view.blocks)).toEqual([]);
  });

  it("an admin also sees pending approvals with buttons, the last 20 audit rows and schedules", async () => {
    const view = await openHome(DEMO.admin);
    expect(headers(view)).toEqual([
      "Hermes",
      "What I can do for you",
      "Your recent requests",
      "Pending approvals (1)",
      "Recent audit log",
      "Schedules",
    ]);
    const text = blocksText(view.blocks);
    expect(text).toContain("• `delete_ticket` — admin");
    expect(text).toContain("No requests yet.");
    expect(buttonsOf(view.blocks)).toEqual([
      expect.objectContaining({ action_id: "hermes.approve", value: pending.id }),
      expect.objectContaining({ action_id: "hermes.reject", value: pending.id }),
    ]);
    const auditIds = [...text.matchAll(/`#(\d+)`/g)].map((m) => Number(m[1]));
    // 26 rows: 12 × (requested, executed), one of Wang Lei's, the approval request; then row 27,
    // this panel's own read (audit.queried, recorded before the rows are read).
    expect(auditIds).toEqual(Array.from({ length: 20 }, (_, i) => 27 - i));
    const [read] = (await h.services.storage.audit.query({ action: "audit.queried", limit: 5 })).rows;
    expect(read).toMatchObject({ id: 27, tool: "app_home", actorId: DEMO.admin, args: { limit: 20 } });
    expect(text).toContain("`0 9 * * 1-5` (UTC) in <#C0OPS> by <@U0ADMIN>");
    expect(text).toContain("summarize urgent tickets");
  });

  it("many pending approvals stay within 100 blocks and say how many more", async () => {
    const more: Approval[] = [];
    for (let i = 0; i < 30; i++) {
      more.push(
        await h.services.storage.approvals.create({
          tool: "send_message",
          args: { to: DEMO.user, text: `msg ${i}` },
          requesterId: DEMO.wangLei,
          sessionKey: `T0001:C0OPS:1764420001.0001${i}`,
          runId: `run_m${i}`,
          toolCallId: `call_m${i}`,
          channelId: DEMO.ops,
          teamId: TEAM,
        }),
      );
    }
    const view = await openHome(DEMO.admin);
    const shown = new Set(buttonsOf(view.blocks).map((b) => b.value));
    expect(shown.size).toBeGreaterThan(3);
    expect(shown.size).toBeLessThan(31);
    expect(blocksText(view.blocks)).toContain(`…and ${31 - shown.size} more pending approvals.`);
    expect(headers(view)).toContain("Schedules");
    for (const a of more) {
      await h.services.storage.approvals.decide({
        approvalId: a.id,
        deciderId: DEMO.admin,
        deciderLevel: "admin",
        decision: "rejected",
      });
    }
  });

  it("opening the Messages tab publishes nothing", async () => {
    const delivery = await h.sender.appHomeOpened({ user: DEMO.wangLei, tab: "messages" });
    expect(delivery.status).toBe(200);
    await new Promise((r) => setTimeout(r, 100));
    expect(h.emulator.callsTo("views.publish")).toEqual([]);
  });
});
