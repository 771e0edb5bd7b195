import { execFile } from "node:child_process";
import { userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEMO } from "../../src/sandbox/seed-demo-workspace.ts";
import type { SandboxMessage } from "../../src/sandbox/workspace-types.ts";
import { AUDIT_CSV_ACTION, AUDIT_NEXT_ACTION } from "../../src/slack/commands/audit-blocks.ts";
import { registerHermesCommand } from "../../src/slack/commands/hermes-command.ts";
import { registerAppHome } from "../../src/slack/home/app-home.ts";
import type { AuditRow } from "../../src/store/audit-chain.ts";
import { type BoltHarness, blocksText, eventually, startBoltHarness } from "../helpers/bolt-app.ts";
import { execSql } from "../helpers/pg.ts";

const REPO = join(import.meta.dirname, "../..");
let h: BoltHarness;

beforeAll(async () => {
  h = await startBoltHarness((app, services, schedules) => {
    registerHermesCommand(app, services, { auditPageSize: 5 });
    registerAppHome(app, services, { schedules });
  });
  for (let i = 1; i <= 12; i++) {
    await h.services.storage.audit.append({
      action: i % 2 ? "tool.requested" : "tool.executed",
      tool: "create_ticket",
      userId: i % 3 ? DEMO.wangLei : DEMO.user,
      // The demo workspace's rows: /hermes audit reads the asking team's only.
      teamId: DEMO.team,
      channelId: DEMO.ops,
      args: { i },
    });
  }
});
afterAll(() => h?.stop());
beforeEach(() => h.emulator.clearCalls());

/** The `audit.queried` rows written after row `afterId`, oldest first. */
async function readsAfter(afterId: number): Promise<AuditRow[]> {
  const { rows } = await h.services.storage.audit.query({ action: "audit.queried", limit: 100 });
  return rows.filter((r) => r.id > afterId).reverse();
}
/** Polls an async check until it finds something; the ceiling only bounds a hang. */
async function until<T>(find: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error("timed out waiting for an audit.queried row");
    await new Promise((r) => setTimeout(r, 50));
  }
}
const headId = async () => (await h.services.storage.audit.head())?.id ?? 0;
const ephemerals = (user: string) => h.emulator.workspace.ephemeralMessages(DEMO.ops, user);

async function slash(user: string, text: string): Promise<SandboxMessage> {
  const before = ephemerals(user).length;
  expect((await h.sender.slashCommand({ user, channel: DEMO.ops, text })).status).toBe(200);
  return eventually(() => ephemerals(user)[before]);
}

describe("reading the audit log is itself audited (audit.queried: who, where, the filters)", () => {
  it("/hermes audit, its Next page and its CSV export each append a row before reading", async () => {
    const start = await headId();
    const page = await slash(
      DEMO.admin,
      `audit user:<@${DEMO.wangLei}> tool:create_ticket action:executed since:24h`,
    );
    expect(blocksText(page.blocks)).toContain("page 1");
    const [first] = await readsAfter(start);
    expect(first).toMatchObject({
      action: "audit.queried",
      tool: "/hermes audit",
      userId: DEMO.admin,
      actorId: DEMO.admin,
      channelId: DEMO.ops,
      args: { user: DEMO.wangLei, tool: "create_ticket", action: ["tool.executed"], page: 1 },
    });
    expect((first?.args as { since?: string } | undefined)?.since).toMatch(/^\d{4}-\d\d-\d\dT/);

    const all = await slash(DEMO.admin, "audit");
    await h.sender.blockAction({
      user: DEMO.admin,
      actionId: AUDIT_NEXT_ACTION,
      channel: DEMO.ops,
      messageTs: all.ts,
    });
    const next = await until(async () => (await readsAfter(start)).find((r) => r.tool.endsWith("next")));
    expect(next).toMatchObject({ actorId: DEMO.admin, args: { page: 2, cursor: expect.any(String) } });

    await h.sender.blockAction({
      user: DEMO.admin,
      actionId: AUDIT_CSV_ACTION,
      channel: DEMO.ops,
      messageTs: all.ts,
    });
    const csv = await until(async () => (await readsAfter(start)).find((r) => r.tool.endsWith("csv")));
    expect(csv).toMatchObject({ actorId: DEMO.admin, args: { maxRows: 5000 } });
    expect((await readsAfter(start)).map((r) => r.tool)).toEqual([
      "/hermes audit",
      "/hermes audit",
      "/hermes audit next",
      "/hermes audit csv",
    ]);
    // The reads are part of the chain like every other row.
    expect(await h.services.storage.audit.verify()).toMatchObject({ ok: true });
  });

  it("an admin's App Home audit panel is audited; a user's own recent requests and a refusal are not reads", async () => {
    const start = await headId();
    expect((await h.sender.appHomeOpened({ user: DEMO.admin })).status).toBe(200);
    const read = await until(async () => (await readsAfter(start))[0]);
    expect(read).toMatchObject({ tool: "app_home", actorId: DEMO.admin, args: { limit: 20 } });

    expect((await h.sender.appHomeOpened({ user: DEMO.user })).status).toBe(200);
    await eventually(() => (h.emulator.callsTo("views.publish").length >= 2 ? true : undefined));
    const refused = await slash(DEMO.user, "audit tool:create_ticket");
    expect(refused.text).toBe("Only admins can query the audit log.");
    expect((await readsAfter(start)).map((r) => r.actorId)).toEqual([DEMO.admin]);
  });

  it("a read that cannot be recorded is not made: the admin is told, no rows are shown", async () => {
    // A trigger that refuses only audit.queried rows: the write fails as an outage would make it.
    await execSql(
      h.store.handle.db,
      `CREATE TRIGGER refuse_reads BEFORE INSERT ON audit_log FOR EACH ROW
         WHEN (NEW.action = 'audit.queried') EXECUTE FUNCTION audit_log_refuse_change()`,
    );
    try {
      const answer = await slash(DEMO.admin, "audit");
      expect(answer.text).toContain("The audit log could not be written");
      expect(blocksText(answer.blocks)).not.toContain("#1");
    } finally {
      await execSql(h.store.handle.db, "DROP TRIGGER refuse_reads ON audit_log");
    }
  });

  it("`npm run audit -- query` (a real process) records the filters and the OS user", async () => {
    const start = await headId();
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        "src/cli/audit.ts",
        "query",
        "--user",
        DEMO.wangLei,
        "--channel",
        DEMO.ops,
        "--action",
        "requested",
        "--since",
        "1h",
        "--limit",
        "3",
        "--format",
        "json",
      ],
      {
        cwd: REPO,
        env: { ...process.env, DATABASE_URL: h.store.url ?? "", HERMES_LOG_LEVEL: "warn" },
        timeout: 110_000,
      },
    );
    expect((JSON.parse(stdout) as { rows: unknown[] }).rows).toHaveLength(3);
    const [read] = await readsAfter(start);
    expect(read).toMatchObject({
      tool: "npm run audit",
      actorId: null,
      args: {
        user: DEMO.wangLei,
        channel: DEMO.ops,
        action: ["tool.requested"],
        limit: 3,
        osUser: userInfo().username,
      },
    });
    expect((read?.args as { since?: string } | undefined)?.since).toMatch(/^\d{4}-\d\d-\d\dT/);
  }, 120_000);
});
