import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunIdentity } from "../../src/core/run-identity.ts";
import { DEMO } from "../../src/sandbox/seed-demo-workspace.ts";
import { tickets } from "../../src/store/schema.ts";
import { ticketReport } from "../../src/tools/reports/ticket-report.ts";
import { DRIVERS, execSql, openTestStore, type TestStore } from "../helpers/pg.ts";
import { decodePng } from "./png-info.ts";
import { run, type SlackSandbox, startSlackSandbox, toolCaller } from "./tool-harness.ts";

const NOW = new Date("2026-11-29T12:00:00Z");
const ago = (hours: number) => new Date(NOW.getTime() - hours * 3_600_000);

describe.each(DRIVERS)("ticket_report on %s", (kind) => {
  let store: TestStore;
  let sandbox: SlackSandbox;
  let call: ReturnType<typeof toolCaller>;
  /** A run in a thread of #ops on the emulator (the bot is a member). */
  const inThread = (more: Partial<RunIdentity> = {}) =>
    run("U0USER1", { threadTs: sandbox.threadTs, ...more });
  const names = () => sandbox.threadFiles().map((f) => f.name);

  beforeAll(async () => {
    store = await openTestStore(kind);
  });
  afterAll(() => store.cleanup());
  beforeEach(async () => {
    await execSql(store.handle.db, "TRUNCATE tickets RESTART IDENTITY");
    sandbox = await startSlackSandbox();
    call = toolCaller([ticketReport({ db: store.handle.db, slack: sandbox.slack, now: () => NOW })]);
  });
  afterEach(() => sandbox.stop());

  async function seed() {
    // In the team the runs are in (tool-harness's T0001): a report counts its own team's tickets.
    const base = { teamId: "T0001", createdBy: "U0ALICE", title: "t" };
    await store.handle.db.insert(tickets).values([
      { ...base, status: "open", priority: "high", assignee: "U0BOB", createdAt: ago(1) },
      { ...base, status: "open", priority: "medium", assignee: "U0BOB", createdAt: ago(48) },
      { ...base, status: "in_progress", priority: "urgent", assignee: "U0CAROL", createdAt: ago(72) },
      { ...base, status: "closed", priority: "low", assignee: null, createdAt: ago(144) },
      { ...base, status: "closed", priority: "medium", assignee: null, createdAt: ago(240) }, // 10 days
      { ...base, status: "open", priority: "medium", assignee: null, createdAt: ago(2400) }, // 100 days
    ]);
  }

  it("7d by status: a Markdown table; a native bar chart and sortable table in the thread; a CSV uploaded", async () => {
    await seed();
    const result = await call("ticket_report", { period: "7d" }, inThread());
    expect(result.ok).toBe(true);
    expect(result.content).toBe(
      [
        "Tickets created in the last 7 days, by status (4 in total):",
        "",
        "| status | tickets |",
        "|---|---:|",
        "| open | 2 |",
        "| in_progress | 1 |",
        "| closed | 1 |",
        "| **total** | **4** |",
        "",
        "Shown in the thread: a bar chart and a sortable table. Attached to the thread: tickets-by-status-7d.csv.",
      ].join("\n"),
    );
    // Posted with the real WebClient, in the thread: Slack's own chart and table (the emulator checks
    // them against Slack's limits), with a text fallback naming the counts.
    const shown = (sandbox.emulator.workspace.replies(DEMO.ops, sandbox.threadTs) ?? []).filter(
      (m) => m.blocks,
    );
    expect(shown).toHaveLength(1);
    expect(shown[0]!.text).toBe(
      "Tickets created in the last 7 days, by status: open 2, in_progress 1, closed 1",
    );
    expect(shown[0]!.blocks).toEqual([
      {
        type: "data_visualization",
        title: "Tickets by status, last 7 days",
        chart: {
          type: "bar",
          series: [
            {
              name: "tickets",
              data: [
                { label: "open", value: 2 },
                { label: "in_progress", value: 1 },
                { label: "closed", value: 1 },
              ],
            },
          ],
          axis_config: {
            categories: ["open", "in_progress", "closed"],
            x_label: "status",
            y_label: "tickets created",
          },
        },
      },
      {
        type: "data_table",
        caption: "Tickets by status, last 7 days",
        page_size: 10,
        rows: [
          [
            { type: "raw_text", text: "status" },
            { type: "raw_text", text: "tickets" },
          ],
          [
            { type: "raw_text", text: "open" },
            { type: "raw_number", value: 2, text: "2" },
          ],
          [
            { type: "raw_text", text: "in_progress" },
            { type: "raw_number", value: 1, text: "1" },
          ],
          [
            { type: "raw_text", text: "closed" },
            { type: "raw_number", value: 1, text: "1" },
          ],
        ],
      },
    ]);
    // The chart is native, so no PNG: only the CSV is uploaded (files.getUploadURLExternal +
    // completeUploadExternal), in the thread.
    const [csv] = sandbox.threadFiles();
    expect(sandbox.threadFiles().map((f) => [f.name, f.channels])).toEqual([
      ["tickets-by-status-7d.csv", [DEMO.ops]],
    ]);
    expect(csv!.title).toBe("Tickets created in the last 7 days, by status (CSV)");
    expect(csv!.bytes.toString("utf8")).toBe("status,tickets\r\nopen,2\r\nin_progress,1\r\nclosed,1\r\n");
  });

  it("more groups than a Slack chart takes (90 days by day): a PNG chart (640×360) instead, still a sortable table", async () => {
    await seed();
    const result = await call("ticket_report", { period: "90d", group_by: "day" }, inThread());
    expect(result.content).toContain(
      "Shown in the thread: a sortable table. Attached to the thread: tickets-by-day-90d.png and tickets-by-day-90d.csv.",
    );
    const shown = (sandbox.emulator.workspace.replies(DEMO.ops, sandbox.threadTs) ?? []).filter(
      (m) => m.blocks,
    );
    expect(shown.map((m) => (m.blocks as Array<{ type: string }>).map((b) => b.type))).toEqual([
      ["data_table"],
    ]);
    const [png, csv] = sandbox.threadFiles();
    expect([png!.name, csv!.name]).toEqual(["tickets-by-day-90d.png", "tickets-by-day-90d.csv"]);
    expect(png!.title).toBe("Tickets created in the last 90 days, by day (UTC)");
    expect(png!.mimetype).toBe("image/png");
    expect(decodePng(png!.bytes)).toMatchObject({ width: 640, height: 360 });
  });

  it("groups by priority (natural order, zeros kept), assignee (most first) and day (every day)", async () => {
    await seed();
    const csvOf = async (args: Record<string, unknown>) => {
      const result = await call("ticket_report", args, inThread());
      expect(result.ok).toBe(true);
      return sandbox
        .threadFiles()
        .findLast((f) => f.name.endsWith(".csv"))!
        .bytes.toString("utf8");
    };
    expect(await csvOf({ period: "30d", group_by: "priority" })).toBe(
      "priority,tickets\r\nlow,1\r\nmedium,2\r\nhigh,1\r\nurgent,1\r\n",
    );
    expect(await csvOf({ period: "7d", group_by: "assignee" })).toBe(
      "assignee,tickets\r\nU0BOB,2\r\nU0CAROL,1\r\nunassigned,1\r\n",
    );
    expect(await csvOf({ period: "7d", group_by: "day" })).toBe(
      [
        "day,tickets",
        "2026-11-22,0",
        "2026-11-23,1",
        "2026-11-24,0",
        "2026-11-25,0",
        "2026-11-26,1",
        "2026-11-27,1",
        "2026-11-28,0",
        "2026-11-29,1",
        "",
      ].join("\r\n"),
    );
    const day90 = await call("ticket_report", { period: "90d", group_by: "day" }, inThread());
    expect(day90.content).toContain("(5 in total)");
    const png = sandbox.threadFiles().find((f) => f.name === "tickets-by-day-90d.png")!;
    expect(decodePng(png.bytes)).toMatchObject({ width: 640, height: 360 });
    const day24 = await call("ticket_report", { period: "24h", group_by: "status" }, inThread());
    expect(day24.content).toContain("Tickets created in the last 24 hours, by status (1 in total)");
  });

  it("days are the requester's calendar days when their time zone is known", async () => {
    // 20:00 UTC on the 28th is 04:00 on the 29th in Shanghai.
    await store.handle.db
      .insert(tickets)
      .values({ teamId: "T0001", title: "late", createdBy: "U0ALICE", createdAt: ago(16) });
    const result = await call(
      "ticket_report",
      { period: "2d", group_by: "day" },
      inThread({ timezone: "Asia/Shanghai" }),
    );
    expect(result.content).toContain("by day (Asia/Shanghai)");
    expect(result.content).toContain("| 2026-11-29 | 1 |");
    expect(result.content).toContain("| 2026-11-28 | 0 |");
  });

  it("zero tickets: says so plainly and uploads nothing", async () => {
    // Only old tickets: none in the period.
    await store.handle.db
      .insert(tickets)
      .values({ teamId: "T0001", title: "old", createdBy: "U0ALICE", createdAt: ago(2400) });
    const empty = await call("ticket_report", { period: "30d", group_by: "assignee" }, inThread());
    expect(empty.ok).toBe(true);
    expect(empty.content).toBe(
      "No tickets were created in the last 30 days, so there is nothing to count or chart; no files were attached.",
    );
    expect(names()).toEqual([]);
  });

  it("without a channel (CLI) returns the table and says the files were not attached", async () => {
    await seed();
    const result = await call(
      "ticket_report",
      { period: "7d" },
      run("U0USER1", { channelId: undefined, threadTs: undefined }),
    );
    expect(result.content).toContain("| **total** | **4** |");
    expect(result.content).toContain(
      "(No Slack channel in this run, so the CSV and chart were not attached.)",
    );
    expect(sandbox.emulator.callsTo("files.getUploadURLExternal")).toHaveLength(0);
  });

  it("a failed upload still returns the table, with the reason", async () => {
    await seed();
    // A channel the bot is not in: Slack refuses to share the file there.
    sandbox.emulator.workspace.addChannel({ id: "C0QUIET", name: "quiet", members: [DEMO.user] });
    const result = await call("ticket_report", { period: "7d" }, run(DEMO.user, { channelId: "C0QUIET" }));
    expect(result.ok).toBe(true);
    expect(result.content).toContain("| open | 2 |");
    expect(result.content).toMatch(/\(Attaching the CSV and chart failed: .*not_in_channel\)$/);
  });

  it("refuses periods that are not a number and h, d or w, zero, or over a year", async () => {
    for (const period of ["7y", "last week", "7"]) {
      const r = await call("ticket_report", { period }, inThread());
      expect(r.ok).toBe(false);
      expect(r.content).toContain("use a number and h, d or w");
    }
    for (const period of ["0d", "400d", "60w"]) {
      const r = await call("ticket_report", { period }, inThread());
      expect(r.content).toContain(`Period "${period}" is not valid`);
    }
    expect((await call("ticket_report", { period: "7d", group_by: "team" }, inThread())).ok).toBe(false);
  });
});
