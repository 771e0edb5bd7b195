import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildStorage } from "../../src/boot/build-storage.ts";
import { loadConfig } from "../../src/config.ts";
import { createLogger, silentLogger } from "../../src/core/logger.ts";
import { findAuditRoleRisk, warnAboutAuditRole } from "../../src/store/audit-role-check.ts";
import { openDatabase } from "../../src/store/db.ts";
import { sql } from "../../src/store/drizzle.ts";
import { migrate } from "../../src/store/migrate.ts";
import {
  adminQuery,
  createTestDatabase,
  openTestStore,
  type TestDatabase,
  urlWithRole,
} from "../helpers/pg.ts";

const KEY = "audit-role-warning-test-key-0123456789";
const suffix = randomBytes(4).toString("hex");
const LOGIN = `hermes_t_login_${suffix}`;
const OWNER = `hermes_t_owner_${suffix}`;

/** A logger whose warnings land in memory, as pino writes them. */
function capturingLogger() {
  const lines: Array<{ level: number; msg: string; role?: string }> = [];
  const logger = createLogger({
    level: "warn",
    destination: { write: (line: string) => lines.push(JSON.parse(line)) },
  });
  return { logger, warnings: () => lines.filter((l) => l.level === 40) };
}

const asUser = (url: string, user: string) => {
  const u = new URL(url);
  u.username = user;
  return u.toString();
};

describe("start-up warns when Hermes connects as a role that can disable the audit triggers", () => {
  let db: TestDatabase;
  let dataDir: string;
  beforeAll(async () => {
    db = await createTestDatabase();
    dataDir = await mkdtemp(join(tmpdir(), "hermes-role-"));
    const handle = await openDatabase({ databaseUrl: db.url, dataDir, logger: silentLogger() });
    try {
      await migrate(handle); // as the superuser: creates hermes_app (cluster-wide) and its grants here
    } finally {
      await handle.close();
    }
    await adminQuery(`CREATE ROLE ${LOGIN} LOGIN IN ROLE hermes_app`);
    await adminQuery(`CREATE ROLE ${OWNER} LOGIN NOSUPERUSER`);
  });
  afterAll(async () => {
    await db?.drop();
    await adminQuery(`DROP ROLE IF EXISTS ${LOGIN}`);
    await adminQuery(`DROP ROLE IF EXISTS ${OWNER}`);
    await rm(dataDir, { recursive: true, force: true });
  });

  const start = async (databaseUrl: string) => {
    const { logger, warnings } = capturingLogger();
    const config = loadConfig({ DATABASE_URL: databaseUrl, HERMES_AUDIT_KEY: KEY, HERMES_DATA_DIR: dataDir });
    const storage = await buildStorage(config, logger);
    await storage.close();
    return warnings();
  };

  it("a superuser login: one warning naming the role and pointing at hermes_app", async () => {
    const [warning, ...more] = await start(db.url);
    expect(more).toEqual([]);
    expect(warning?.role).toBe("postgres");
    expect(warning?.msg).toContain('"postgres" is a superuser');
    expect(warning?.msg).toContain("DISABLE TRIGGER");
    expect(warning?.msg).toContain("hermes_app");
  });

  it("a superuser that only SET ROLEs to hermes_app still warns (it can RESET ROLE)", async () => {
    const warnings = await start(urlWithRole(db.url, "hermes_app"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toContain('"postgres" is a superuser');
  });

  it("a login role in hermes_app starts without a warning", async () => {
    expect(await start(asUser(db.url, LOGIN))).toEqual([]);
  });

  it("the table's owner (not a superuser) is named too", async () => {
    const ownerUrl = asUser(db.url, OWNER);
    const handle = await openDatabase({ databaseUrl: db.url, dataDir, logger: silentLogger() });
    try {
      await handle.db.execute(sql.raw(`ALTER TABLE audit_log OWNER TO ${OWNER}`));
    } finally {
      await handle.close();
    }
    const asOwner = await openDatabase({ databaseUrl: ownerUrl, dataDir, logger: silentLogger() });
    const { logger, warnings } = capturingLogger();
    try {
      const risk = await warnAboutAuditRole(asOwner, logger);
      expect(risk).toMatchObject({
        sessionRole: OWNER,
        owner: OWNER,
        reasons: [`"${OWNER}" owns audit_log`],
      });
    } finally {
      await asOwner.close();
    }
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]?.role).toBe(OWNER);
  });

  it("embedded PGlite: no check, no warning (a local file, not a shared server)", async () => {
    const store = await openTestStore("pglite");
    try {
      expect(await findAuditRoleRisk(store.handle)).toBeUndefined();
    } finally {
      await store.cleanup();
    }
  }, 60_000);
});
