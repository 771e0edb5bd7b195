import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { type AuditLog, createAuditLog } from "../../src/store/audit.ts";
import { type DatabaseHandle, openDatabase } from "../../src/store/db.ts";
import { DRIVERS, dbErrorText, execSql, openTestStore, type TestStore, urlWithRole } from "../helpers/pg.ts";

const event = (i: number) => ({
  action: "tool.executed" as const,
  tool: "get_ticket",
  userId: "U0A",
  args: { id: i },
});

describe.each(DRIVERS)("audit_log is append-only on %s", (kind) => {
  let store: TestStore;
  let audit: AuditLog;
  beforeAll(async () => {
    store = await openTestStore(kind);
    audit = createAuditLog(store.handle);
    for (let i = 1; i <= 3; i++) await audit.append(event(i));
  });
  afterAll(() => store?.cleanup());

  describe("for the table owner (triggers)", () => {
    it.each([
      ["UPDATE", "UPDATE audit_log SET tool = 'x' WHERE id = 2"],
      ["DELETE", "DELETE FROM audit_log WHERE id = 2"],
      ["TRUNCATE", "TRUNCATE audit_log"],
    ])("refuses %s", async (op, statement) => {
      expect(await dbErrorText(execSql(store.handle.db, statement))).toContain(
        `audit_log is append-only: ${op} is not allowed`,
      );
      expect(await audit.verify()).toMatchObject({ ok: true, rows: 3 });
    });
  });

  describe("as the hermes_app role (grants)", () => {
    // Postgres: a pool whose every connection logs in with role=hermes_app, as the app would.
    // PGlite is one connection: SET ROLE on it for these tests, RESET afterwards.
    let app: DatabaseHandle;
    beforeAll(async () => {
      if (store.handle.kind === "postgres" && store.url) {
        app = await openDatabase({
          databaseUrl: urlWithRole(store.url, "hermes_app"),
          dataDir: "",
          logger: silentLogger(),
        });
      } else {
        app = store.handle;
        await execSql(app.db, "SET ROLE hermes_app");
      }
      expect(await execSql(app.db, "SELECT current_user AS u")).toEqual([{ u: "hermes_app" }]);
    });
    afterAll(async () => {
      if (app === store.handle) await execSql(app.db, "RESET ROLE");
      else await app?.close();
    });

    it("may append (INSERT, SELECT, nextval) and verify", async () => {
      const appAudit = createAuditLog(app);
      const row = await appAudit.append(event(4));
      expect(row.id).toBe(4);
      expect(await appAudit.verify()).toMatchObject({ ok: true, rows: 4 });
    });

    it.each([
      ["UPDATE", "UPDATE audit_log SET tool = 'x' WHERE id = 2"],
      ["DELETE", "DELETE FROM audit_log WHERE id = 2"],
      ["TRUNCATE", "TRUNCATE audit_log"],
      ["ALTER TABLE", "ALTER TABLE audit_log DISABLE TRIGGER USER"],
    ])("is refused %s", async (_op, statement) => {
      expect(await dbErrorText(execSql(app.db, statement))).toMatch(
        /permission denied for table audit_log|must be owner of table audit_log/,
      );
    });

    it("keeps normal rights on the other tables", async () => {
      await execSql(app.db, "INSERT INTO users (id, level) VALUES ('U0APP', 'viewer')");
      await execSql(app.db, "UPDATE users SET level = 'user' WHERE id = 'U0APP'");
      await execSql(app.db, "DELETE FROM users WHERE id = 'U0APP'");
    });
  });
});
