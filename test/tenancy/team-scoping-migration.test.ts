/**
 * drizzle/0015_team_scoping on a database written by the single-workspace Hermes: migrations up to
 * 0014, rows written then (one audit chain mixing teams, tickets, memories, schedules, a channel
 * budget), then 0015. The old audit rows keep verifying as the '' chain (and an old checkpoint still
 * checks), each team's new rows start a chain of their own, and the other rows become the bot's
 * workspace's at start (`adoptLegacyRows`).
 */
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { LEGACY_TENANT } from "../../src/core/tenant.ts";
import { adoptLegacyRows } from "../../src/store/adopt-legacy-rows.ts";
import { createAuditLog } from "../../src/store/audit.ts";
import { GENESIS_HASH } from "../../src/store/audit-chain.ts";
import { signCheckpoint } from "../../src/store/audit-checkpoint.ts";
import { createAuditKey } from "../../src/store/audit-key.ts";
import { type DatabaseHandle, openDatabase } from "../../src/store/db.ts";
import { drizzleNodePg, migrateNodePg } from "../../src/store/drizzle.ts";
import { MIGRATIONS_FOLDER, migrate } from "../../src/store/migrate.ts";
import { createTestDatabase, execSql, type TestDatabase } from "../helpers/pg.ts";

const TAG = "0015_team_scoping";
const TEAM = "T0LEGACY1";
const OTHER = "T0OTHER01";
const key = createAuditKey("a-test-audit-key-of-32-characters!!");

interface Journal {
  entries: Array<{ tag: string }>;
}

/** A copy of drizzle/ holding the migrations before `tag` only. */
async function migrationsBefore(tag: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "hermes-migrations-"));
  await cp(MIGRATIONS_FOLDER, dir, { recursive: true });
  const file = join(dir, "meta", "_journal.json");
  const journal = JSON.parse(await readFile(file, "utf8")) as Journal;
  const at = journal.entries.findIndex((e) => e.tag === tag);
  expect(at).toBeGreaterThan(0);
  await writeFile(file, JSON.stringify({ ...journal, entries: journal.entries.slice(0, at) }));
  return dir;
}

describe(`${TAG} on postgres, over a single-workspace database`, () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let folder: string;
  beforeAll(async () => {
    database = await createTestDatabase();
    handle = await openDatabase({ databaseUrl: database.url, dataDir: "", logger: silentLogger() });
    folder = await migrationsBefore(TAG);
  });
  afterAll(async () => {
    await handle?.close();
    await database?.drop();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it("old rows verify as the '' chain, new rows chain per team, and the rest is adopted by the bot's team", async () => {
    if (handle.kind !== "postgres") throw new Error("postgres only");
    const conn = await handle.pool.connect();
    try {
      await migrateNodePg(drizzleNodePg({ client: conn }), { migrationsFolder: folder });
    } finally {
      conn.release();
    }
    const db = handle.db;
    expect(
      await execSql(
        db,
        "SELECT count(*)::int AS n FROM information_schema.columns WHERE column_name = 'chain_id'",
      ),
    ).toEqual([{ n: 0 }]);

    // The single-workspace Hermes writes: one chain whatever the team (the 0010 append).
    const before = createAuditLog({ ...handle, key });
    const old = [];
    for (const [i, teamId] of [TEAM, null, OTHER, TEAM, null].entries()) {
      old.push(
        await before.append({
          action: "tool.executed",
          tool: "get_ticket",
          userId: "U0OLD",
          teamId,
          args: { i },
        }),
      );
    }
    for (let i = 1; i < old.length; i++) expect(old[i]?.prevHash).toBe(old[i - 1]?.hash);
    // A checkpoint of the head as the single-chain Hermes signed it (no team in it).
    const last = old.at(-1)!;
    const oldCheckpoint = signCheckpoint(key, last, new Date("2026-12-01T00:00:00Z"));
    await execSql(
      db,
      "INSERT INTO tickets (title, created_by) VALUES ('VPN down', 'U0OLD'), ('Printer', 'U0OLD')",
    );
    await execSql(
      db,
      "INSERT INTO memories (scope, owner_id, fact) VALUES ('user', 'U0OLD', 'The VPN is vpn.example.com')",
    );
    await execSql(
      db,
      "INSERT INTO schedules (cron, channel_id, prompt, owner_id) VALUES ('0 9 * * *', 'C0OPS', 'summary', 'U0OLD')",
    );
    await execSql(
      db,
      "INSERT INTO channel_budgets (channel_id, token_budget_per_day) VALUES ('C0OPS', 1000)",
    );

    // The upgrade.
    expect((await migrate(handle)).applied).toBeGreaterThan(0);

    const audit = createAuditLog({ ...handle, key });
    expect(await audit.chains()).toEqual([LEGACY_TENANT]);
    expect(await audit.verify()).toEqual({ ok: true, rows: 5, head: old.at(-1)?.hash });
    expect(await audit.verify({ team: LEGACY_TENANT })).toMatchObject({ ok: true, rows: 5 });
    // A checkpoint signed before the upgrade still checks.
    expect(oldCheckpoint.team).toBeUndefined();
    expect(await audit.checkCheckpoint(oldCheckpoint)).toMatchObject({ ok: true });

    // After: each team's rows start a chain of their own; rows without a team go on from the old head.
    const a = await audit.append({ action: "tool.requested", tool: "create_ticket", teamId: TEAM });
    const none = await audit.append({ action: "audit.queried", tool: "npm run audit" });
    const b = await audit.append({ action: "tool.requested", tool: "create_ticket", teamId: OTHER });
    expect(a.prevHash).toBe(GENESIS_HASH);
    expect(b.prevHash).toBe(GENESIS_HASH);
    expect(none.prevHash).toBe(old.at(-1)?.hash);
    expect(await audit.chains()).toEqual([LEGACY_TENANT, TEAM, OTHER].sort());
    expect(await audit.verify()).toMatchObject({ ok: true, rows: 8 });
    expect(await audit.verify({ team: TEAM })).toEqual({ ok: true, rows: 1, head: a.hash });
    expect(await audit.verify({ team: LEGACY_TENANT })).toMatchObject({ ok: true, rows: 6, head: none.hash });
    // /hermes audit of TEAM shows its rows, old and new (by team_id), never OTHER's.
    const rows = (await audit.query({ team: TEAM })).rows;
    expect(rows.map((r) => r.teamId)).toEqual([TEAM, TEAM, TEAM]);

    // The other tables: '' until the bot's workspace adopts them at start, once.
    expect(await execSql(db, "SELECT DISTINCT team_id FROM tickets")).toEqual([{ team_id: "" }]);
    expect(await adoptLegacyRows(db, TEAM)).toEqual({ adopted: 5 });
    expect(await adoptLegacyRows(db, TEAM)).toEqual({ adopted: 0 });
    for (const table of ["tickets", "memories", "schedules", "channel_budgets"]) {
      expect(await execSql(db, `SELECT DISTINCT team_id FROM ${table}`)).toEqual([{ team_id: TEAM }]);
    }
  });
});
