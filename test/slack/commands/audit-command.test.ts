import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEMO } from "../../../src/sandbox/seed-demo-workspace.ts";
import type { SandboxMessage } from "../../../src/sandbox/workspace-types.ts";
import { AUDIT_CSV_ACTION, AUDIT_NEXT_ACTION } from "../../../src/slack/commands/audit-blocks.ts";
import { exportAuditCsv } from "../../../src/slack/commands/audit-csv.ts";
import { registerHermesCommand } from "../../../src/slack/commands/hermes-command.ts";
import type { AuditEvent } from "../../../src/store/audit.ts";
import { auditRowsToCsv } from "../../../src/store/audit-format.ts";
import {
  type BoltHarness,
  blocksText,
  buttonsOf,
  eventually,
  failedCalls,
  startBoltHarness,
} from "../../helpers/bolt-app.ts";

let h: BoltHarness;
const SEEDED = 30;

/** Thirty rows across users, tools and actions; row i's args carry `n: i`. */
function seededEvent(i: number): AuditEvent {
  const actions = ["tool.requested", "tool.executed", "tool.approved", "tool.failed"] as const;
  const action = actions[i % actions.length] ?? "tool.requested";
  return {
    action,
    tool: i % 3 === 0 ? "send_message" : "create_ticket",
    userId: i % 2 === 0 ? DEMO.user : DEMO.wangLei,
    actorId: action === "tool.approved" ? DEMO.admin : null,
    teamId: DEMO.team,
    channelId: DEMO.ops,
    runId: `run_${i}`,
    toolCallId: `call_${i}`,
    args: { n: i, title: `Ticket <${i}> & \`more\`` },
    error: action === "tool.failed" ? `boom ${i}` : null,
  };
}

beforeAll(async () => {
  h = await startBoltHarness((app, services) => registerHermesCommand(app, services));
  for (let i = 1; i <= SEEDED; i++) await h.services.storage.audit.append(seededEvent(i));
});

afterAll(() => h.stop());

beforeEach(() => {
  h.emulator.clearCalls();
});

const ephemerals = (user: string) => h.emulator.workspace.ephemeralMessages(DEMO.ops, user);

async function audit(user: string, text: string): Promise<SandboxMessage> {
  const before = ephemerals(user).length;
  const delivery = await h.sender.slashCommand({ user, channel: DEMO.ops, text: `audit ${text}`.trim() });
  expect(delivery.status).toBe(200);
  return eventually(() => ephemerals(user)[before]);
}

async function click(user: string, message: SandboxMessage, actionId: string): Promise<void> {
  const delivery = await h.sender.blockAction({ user, actionId, channel: DEMO.ops, messageTs: message.ts });
  expect(delivery.status).toBe(200);
}

/** The `#id`s of audit rows shown in a message, in order. */
function rowIds(message: SandboxMessage | undefined): number[] {
  return [...blocksText(message?.blocks).matchAll(/`#(\d+)`/g)].map((m) => Number(m[1]));
}

function expectWithinLimits(message: SandboxMessage | undefined) {
  expect(message?.blocks?.length ?? 0).toBeLessThanOrEqual(50);
  for (const b of (message?.blocks ?? []) as Array<{ text?: { text: string } }>) {
    expect(b.text?.text.length ?? 0).toBeLessThanOrEqual(3000);
  }
  for (const button of buttonsOf(message?.blocks))
    expect(button.value?.length ?? 0).toBeLessThanOrEqual(2000);
  expect(h.emulator.callsTo("chat.postEphemeral")).toEqual([]);
  expect(failedCalls(h.emulator)).toEqual([]);
}

describe("/hermes audit as an admin", () => {
  it("shows the newest 20 rows; Next page replaces them with the rest, without overlap", async () => {
    const first = await audit(DEMO.admin, "");
    expectWithinLimits(first);
    const text = blocksText(first.blocks);
    expect(text).toContain("*Audit log* — page 1, rows 1–20, newest first (times UTC)");
    expect(text).toContain("Filters: none");
    const page1 = rowIds(first);
    // Reading is audited before the rows are read, so the newest row is this very query.
    expect(page1).toEqual([SEEDED + 1, ...Array.from({ length: 19 }, (_, i) => SEEDED - i)]);
    expect(text).toMatch(/`#31` .* · \*audit\.queried\* · `\/hermes audit` · <@U0ADMIN>/);
    // Row 30 was approved by the admin; stored text is escaped, on one line, without backticks.
    expect(text).toMatch(
      /`#30` `\d{4}-\d\d-\d\d \d\d:\d\d:\d\d` · \*approved\* · `send_message` · <@U0USER1> · by <@U0ADMIN> · `\{"n":30,"title":"Ticket &lt;30&gt; &amp; 'more'"\}`/,
    );
    expect(text).toMatch(/`#27` .* · \*failed\* · `send_message` · <@U0WANGLEI> · error: boom 27/);
    expect(buttonsOf(first.blocks).map((b) => b.action_id)).toEqual([AUDIT_NEXT_ACTION, AUDIT_CSV_ACTION]);

    await click(DEMO.admin, first, AUDIT_NEXT_ACTION);
    const second = await eventually(() => {
      const m = h.emulator.workspace.getMessage(DEMO.ops, first.ts, { includeEphemeral: true });
      return m && rowIds(m)[0] !== page1[0] ? m : undefined;
    });
    expectWithinLimits(second);
    expect(blocksText(second.blocks)).toContain("page 2, rows 21–31");
    const page2 = rowIds(second);
    expect(page2).toEqual(Array.from({ length: 11 }, (_, i) => 11 - i));
    // Both reads are on record, with who asked and the filters, page and cursor they used.
    const { rows: reads } = await h.services.storage.audit.query({ action: "audit.queried", limit: 2 });
    expect(reads.map((r) => [r.tool, r.actorId, r.userId, r.channelId])).toEqual([
      ["/hermes audit next", DEMO.admin, DEMO.admin, DEMO.ops],
      ["/hermes audit", DEMO.admin, DEMO.admin, DEMO.ops],
    ]);
    expect(reads[1]?.args).toEqual({ page: 1 });
    expect(reads[0]?.args).toEqual({ page: 2, cursor: expect.any(String) });
    expect(page1.filter((id) => page2.includes(id))).toEqual([]);
    // The last page has no Next button; the replacement used new block ids.
    expect(buttonsOf(second.blocks).map((b) => b.action_id)).toEqual([AUDIT_CSV_ACTION]);
    const ids = (blocks: unknown[] | undefined) =>
      ((blocks ?? []) as Array<{ block_id?: string }>).flatMap((b) => (b.block_id ? [b.block_id] : []));
    expect(ids(second.blocks).filter((id) => ids(first.blocks).includes(id))).toEqual([]);
    // Replaced in place, not posted again.
    expect(ephemerals(DEMO.admin).filter((m) => m.ts === first.ts)).toHaveLength(1);
  });

  it("filters by user, tool, action and time, and echoes them", async () => {
    const message = await audit(
      DEMO.admin,
      `user:<@${DEMO.wangLei}|wang.lei> tool:create_ticket action:executed,tool.failed since:24h`,
    );
    expectWithinLimits(message);
    const text = blocksText(message.blocks);
    expect(text).toMatch(
      /Filters: user <@U0WANGLEI> · tool `create_ticket` · action executed, failed · since \d{4}-\d\d-\d\d \d\d:\d\d UTC/,
    );
    const expected = Array.from({ length: SEEDED }, (_, i) => i + 1)
      .filter((i) => i % 2 === 1 && i % 3 !== 0 && (i % 4 === 1 || i % 4 === 3))
      .reverse();
    expect(rowIds(message)).toEqual(expected);

    // The same person by name, as a person types it: the filter holds their id.
    for (const written of ['user:"Wang Lei"', "user:@wang.lei", "user:WANG.LEI"]) {
      const byName = await audit(
        DEMO.admin,
        `${written} tool:create_ticket action:executed,tool.failed since:24h`,
      );
      expect(blocksText(byName.blocks)).toContain("Filters: user <@U0WANGLEI>");
      expect(rowIds(byName)).toEqual(expected);
    }

    const none = await audit(DEMO.admin, "until:2000-01-01");
    expect(blocksText(none.blocks)).toContain("No audit rows match these filters.");
    expect(buttonsOf(none.blocks)).toEqual([]);
  });

  it("Export CSV uploads the filtered rows to the admin's DM and says so", async () => {
    const message = await audit(DEMO.admin, "tool:send_message");
    await click(DEMO.admin, message, AUDIT_CSV_ACTION);
    const notice = await eventually(() => ephemerals(DEMO.admin).find((m) => m.text.includes("I sent")));
    expect(notice.text).toMatch(/I sent `hermes-audit-.*\.csv` with 10 audit rows to our DM: <#D0ADMIN>/);

    const dm = h.emulator.workspace.history(DEMO.dmAdmin);
    const shared = dm.at(-1);
    expect(shared?.text).toBe("Audit log export: 10 rows.");
    const fileId = shared?.files?.[0]?.id ?? "";
    const file = h.emulator.workspace.getFile(fileId);
    expect(file).toMatchObject({ mimetype: "text/csv", uploaded: true });
    const { rows } = await h.services.storage.audit.query({ tool: "send_message", limit: 1000 });
    expect(rows).toHaveLength(10);
    expect(file?.bytes.toString("utf8")).toBe(auditRowsToCsv(rows));
    expect(h.emulator.calls.map((c) => c.method)).toEqual([
      "conversations.open",
      "files.getUploadURLExternal",
      "files.completeUploadExternal",
    ]);
    expect(failedCalls(h.emulator)).toEqual([]);
  });
});

describe("/hermes audit channel:", () => {
  it("filters by the conversation, written as Slack's reference, an id or a #name; an unknown name gets close matches", async () => {
    // Three rows from turns in #general (the seeded ones are all in #ops).
    const inGeneral: number[] = [];
    for (const n of [1, 2, 3]) {
      const row = await h.services.storage.audit.append({
        ...seededEvent(n),
        tool: "get_ticket",
        channelId: DEMO.general,
        runId: `run_general_${n}`,
        toolCallId: `call_general_${n}`,
      });
      inGeneral.push(row.id);
    }
    const newestFirst = [...inGeneral].reverse();
    for (const written of [
      `channel:<#${DEMO.general}|general>`,
      `channel:${DEMO.general}`,
      "channel:#general",
      "channel:general",
      `channel:#${DEMO.general}`,
    ]) {
      const message = await audit(DEMO.admin, `${written} since:24h`);
      expectWithinLimits(message);
      const text = blocksText(message.blocks);
      expect(text).toContain(`Filters: channel <#${DEMO.general}>`);
      expect(rowIds(message)).toEqual(newestFirst);
    }
    // The read itself is on record with the resolved id.
    const { rows: reads } = await h.services.storage.audit.query({ action: "audit.queried", limit: 1 });
    expect(reads[0]?.args).toMatchObject({ channel: DEMO.general, page: 1 });
    // Combined with the other filters.
    const combined = await audit(DEMO.admin, `channel:#ops tool:get_ticket`);
    expect(blocksText(combined.blocks)).toContain("No audit rows match these filters.");
    // Kept by the buttons: the export holds the same three rows.
    const page = await audit(DEMO.admin, "channel:#general tool:get_ticket");
    h.emulator.clearCalls();
    await click(DEMO.admin, page, AUDIT_CSV_ACTION);
    const notice = await eventually(() =>
      ephemerals(DEMO.admin).find((m) => m.text.includes("I sent") && m.text.includes("3 audit rows")),
    );
    expect(notice.text).toMatch(/with 3 audit rows to our DM/);

    const typo = await audit(DEMO.admin, "channel:#genral");
    expect(typo.text).toBe(
      ":warning: `channel:` No channel named #genral. Did you mean #general? For example: `/hermes audit channel:#ops`.",
    );
    const person = await audit(DEMO.admin, `channel:<@${DEMO.user}>`);
    expect(person.text).toBe(
      ":warning: `channel:<@U0USER1>` is a person; `channel:` needs a channel, e.g. `channel:#ops`.",
    );
    const twice = await audit(DEMO.admin, "channel:#ops channel:#general");
    expect(twice.text).toBe(":warning: `channel:` is given twice; give it once.");
  });
});

describe("exportAuditCsv", () => {
  it("stops at maxRows, keeps the newest rows and says the export is cut", async () => {
    // From the admin's workspace (as the button's click says): its team's rows only.
    const sent = await exportAuditCsv(h.services, {
      userId: DEMO.admin,
      teamId: DEMO.team,
      filters: {},
      maxRows: 25,
    });
    expect(sent).toMatchObject({ rows: 25, truncated: true, channel: DEMO.dmAdmin });
    const shared = h.emulator.workspace.history(DEMO.dmAdmin).at(-1);
    expect(shared?.text).toBe(
      "Audit log export: 25 rows (the newest 25; narrow the filters for older rows).",
    );
    const csv = h.emulator.workspace.getFile(shared?.files?.[0]?.id ?? "")?.bytes.toString("utf8") ?? "";
    const ids = csv
      .trim()
      .split("\r\n")
      .slice(1)
      .map((line) => Number(line.split(",")[0]));
    // The newest 25 rows at the time, the first being this export's own audit.queried row.
    const newest = (await h.services.storage.audit.query({ team: DEMO.team, limit: 25 })).rows;
    expect(ids).toEqual(newest.map((r) => r.id));
    expect(newest[0]).toMatchObject({
      action: "audit.queried",
      tool: "/hermes audit csv",
      actorId: DEMO.admin,
      args: { maxRows: 25 },
    });
  });

  it("defuses cells that start like a spreadsheet formula", async () => {
    await h.services.storage.audit.append({
      ...seededEvent(SEEDED + 1),
      action: "tool.failed",
      error: '=HYPERLINK("http://evil.example","open")',
      resultSummary: "@SUM(A1:A9)",
    });
    await exportAuditCsv(h.services, { userId: DEMO.admin, teamId: DEMO.team, filters: {}, maxRows: 2 });
    const shared = h.emulator.workspace.history(DEMO.dmAdmin).at(-1);
    const csv = h.emulator.workspace.getFile(shared?.files?.[0]?.id ?? "")?.bytes.toString("utf8") ?? "";
    expect(csv).toContain(`"'=HYPERLINK(""http://evil.example"",""open"")"`);
    expect(csv).toContain(",'@SUM(A1:A9),");
    expect(csv).not.toMatch(/,[=@]/);
  });
});

describe("/hermes audit as someone else", () => {
  it("refuses a user, and refuses their clicks on an admin's buttons too", async () => {
    const refused = await audit(DEMO.user, "tool:create_ticket");
    expect(refused.text).toBe("Only admins can query the audit log.");
    expect(buttonsOf(refused.blocks)).toEqual([]);

    const adminPage = await audit(DEMO.admin, "");
    const next = buttonsOf(adminPage.blocks).find((b) => b.action_id === AUDIT_NEXT_ACTION);
    const before = ephemerals(DEMO.user).length;
    await h.sender.blockAction({
      user: DEMO.user,
      actionId: AUDIT_NEXT_ACTION,
      ...(next?.value ? { value: next.value } : {}),
      channel: DEMO.ops,
      messageTs: adminPage.ts,
    });
    const answer = await eventually(() => ephemerals(DEMO.user)[before]);
    expect(answer.text).toBe("Only admins can query the audit log.");
    const { rows } = await h.services.storage.audit.query({ tool: "/hermes", user: DEMO.user });
    expect(rows.map((r) => (r.args as { subcommand: string }).subcommand)).toEqual(["audit.next", "audit"]);
  });

  it("a tampered button value gets a clear message, not a stack", async () => {
    const adminPage = await audit(DEMO.admin, "");
    const before = ephemerals(DEMO.admin).length;
    await h.sender.blockAction({
      user: DEMO.admin,
      actionId: AUDIT_NEXT_ACTION,
      value: '{"p":"x","evil":true}',
      channel: DEMO.ops,
      messageTs: adminPage.ts,
    });
    const answer = await eventually(() => ephemerals(DEMO.admin)[before]);
    expect(answer.text).toContain("That audit button is out of date");
  });
});
