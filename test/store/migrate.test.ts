import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { openDatabase } from "../../src/store/db.ts";
import { readMigrationFiles } from "../../src/store/drizzle.ts";
import { MIGRATIONS_FOLDER, migrate } from "../../src/store/migrate.ts";
import {
  adminQuery,
  createTestDatabase,
  DRIVERS,
  dbErrorText,
  execSql,
  openTestStore,
  type TestStore,
  urlWithRole,
} from "../helpers/pg.ts";

const TABLES = ["approvals", "audit_log", "memories", "results", "runs", "slack_events", "tickets", "users"];
const AUDIT_COLUMNS = [
  "id",
  "created_at",
  "action",
  "tool",
  "user_id",
  "team_id",
  "channel_id",
  "thread_ts",
  "run_id",
  "tool_call_id",
  "approval_id",
  "actor_id",
  "args",
  "args_sha256",
  "result_summary",
  "error",
  "duration_ms",
  "prev_hash",
  "hash",
  // 0015: the team's chain the row belongs to (one hash chain per team).
  "chain_id",
];
const TICKET_COLUMNS = ["id", "title", "description", "status", "priority", "assignee", "created_by"];

describe.each(DRIVERS)("migrations on %s", (kind) => {
  let store: TestStore;
  beforeAll(async () => {
    store = await openTestStore(kind);
  });
  afterAll(() => store?.cleanup());

  it("creates every table of the contract with its column names", async () => {
    const tables = await execSql<{ table_name: string }>(
      store.handle.db,
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
    );
    expect(tables.map((t) => t.table_name)).toEqual(expect.arrayContaining(TABLES));
    const columns = async (table: string) =>
      (
        await execSql<{ column_name: string }>(
          store.handle.db,
          `SELECT column_name FROM information_schema.columns WHERE table_name = '${table}' ORDER BY ordinal_position`,
        )
      ).map((c) => c.column_name);
    expect(await columns("audit_log")).toEqual(AUDIT_COLUMNS);
    expect(await columns("tickets")).toEqual(expect.arrayContaining(TICKET_COLUMNS));
    // 0007: the event a run belongs to (unique), and the kept job of an unfinished Slack event.
    expect(await columns("runs")).toContain("event_id");
    expect(await columns("slack_events")).toContain("payload");
    const indexes = await execSql<{ indexname: string }>(
      store.handle.db,
      "SELECT indexname FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1",
    );
    expect(indexes.map((i) => i.indexname)).toEqual(
      expect.arrayContaining([
        "runs_event_id_key",
        "results_created_at_idx",
        "slack_events_status_idx",
        "schedule_fires_claimed_at_idx",
      ]),
    );
    await execSql(
      store.handle.db,
      "INSERT INTO runs (id, session_key, snapshot, event_id) VALUES ('run_m1', 'k', '{}', 'Ev_m')",
    );
    expect(
      await dbErrorText(
        execSql(
          store.handle.db,
          "INSERT INTO runs (id, session_key, snapshot, event_id) VALUES ('run_m2', 'k', '{}', 'Ev_m')",
        ),
      ),
    ).toContain("runs_event_id_key");
  });

  it("is idempotent: a second run applies nothing", async () => {
    expect(await migrate(store.handle)).toEqual({ applied: 0 });
  });

  it("ticket search_text matches English and Chinese substrings, case-insensitively", async () => {
    await execSql(
      store.handle.db,
      `INSERT INTO tickets (title, description, created_by) VALUES
        ('VPN down in Shanghai', '上海办公室的VPN无法连接', 'U1'), ('Printer jam', '打印机卡纸', 'U2')`,
    );
    const search = async (q: string) =>
      (
        await execSql<{ title: string }>(
          store.handle.db,
          `SELECT title FROM tickets WHERE search_text LIKE '%' || lower('${q}') || '%' ORDER BY id`,
        )
      ).map((r) => r.title);
    expect(await search("vpn")).toEqual(["VPN down in Shanghai"]);
    expect(await search("无法连接")).toEqual(["VPN down in Shanghai"]);
    expect(await search("卡纸")).toEqual(["Printer jam"]);
  });

  it("creates the hermes_app role with INSERT and SELECT only on audit_log", async () => {
    // PGlite runs as a superuser too, so the role migration runs (and is checked) on both drivers.
    const rows = await execSql<{ privilege_type: string }>(
      store.handle.db,
      `SELECT privilege_type FROM information_schema.role_table_grants
        WHERE grantee = 'hermes_app' AND table_name = 'audit_log' ORDER BY 1`,
    );
    expect(rows.map((r) => r.privilege_type)).toEqual(["INSERT", "SELECT"]);
  });
});

describe("migrations on postgres, concurrently and as the app role", () => {
  it("two replicas migrating one fresh database at once both succeed, applied once", async () => {
    const database = await createTestDatabase();
    const open = () => openDatabase({ databaseUrl: database.url, dataDir: "", logger: silentLogger() });
    const [a, b] = await Promise.all([open(), open()]);
    try {
      const results = await Promise.all([migrate(a), migrate(b)]);
      const all = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER }).length;
      expect(results.map((r) => r.applied).sort()).toEqual([0, all]);
      // Start-up as hermes_app (no CREATE rights) against the migrated database: nothing to do, no error.
      const app = await openDatabase({
        databaseUrl: urlWithRole(database.url, "hermes_app"),
        dataDir: "",
        logger: silentLogger(),
      });
      try {
        expect(await migrate(app)).toEqual({ applied: 0 });
      } finally {
        await app.close();
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
      await database.drop();
    }
  });
});

describe("migrations on postgres as an owner who may not create roles", () => {
  it("applies everything except the hermes_app role, without failing", async () => {
    const owner = `hermes_t_owner_${randomBytes(4).toString("hex")}`;
    await adminQuery(`CREATE ROLE ${owner} LOGIN NOCREATEROLE NOSUPERUSER`);
    const database = await createTestDatabase();
    try {
      await adminQuery(`ALTER DATABASE ${database.name} OWNER TO ${owner}`);
      const url = new URL(database.url);
      url.username = owner;
      const handle = await openDatabase({ databaseUrl: url.toString(), dataDir: "", logger: silentLogger() });
      try {
        expect((await migrate(handle)).applied).toBeGreaterThan(0);
        const grants = await execSql(
          handle.db,
          "SELECT 1 FROM information_schema.role_table_grants WHERE grantee = 'hermes_app'",
        );
        expect(grants).toEqual([]);
        expect(await dbErrorText(execSql(handle.db, "TRUNCATE audit_log"))).toContain("append-only");
      } finally {
        await handle.close();
      }
    } finally {
      await database.drop();
      await adminQuery(`DROP ROLE IF EXISTS ${owner}`);
    }
  });
});
