import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { createAuditLog } from "../../src/store/audit.ts";
import { findAuditRoleRisk } from "../../src/store/audit-role-check.ts";
import { type DatabaseHandle, openDatabase } from "../../src/store/db.ts";
import { migrate } from "../../src/store/migrate.ts";
import { adminQuery, dbErrorText, execSql, PG_ADMIN_URL } from "../helpers/pg.ts";

const root = join(import.meta.dirname, "..", "..");

/** The SQL blocks of docs/deploy.md's "The Postgres role", in order. */
function roleSql(): string[] {
  const doc = readFileSync(join(root, "docs", "deploy.md"), "utf8");
  const section = doc.slice(doc.indexOf("## The Postgres role"), doc.indexOf("## Sizing"));
  return [...section.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/**
 * docs/deploy.md's statements for a DBA whose migrating role may not create roles, run as written
 * (with names of this test's own, roles being cluster-wide): the migrations as the owner, then the
 * grants, and the app's login role gets normal rights everywhere but INSERT and SELECT only on
 * `audit_log`, starts (nothing pending), and is not one that could switch the audit triggers off.
 */
describe("the Postgres role statements in docs/deploy.md", () => {
  const suffix = randomBytes(4).toString("hex");
  const names = { owner: `ho_${suffix}`, app: `happ_${suffix}`, login: `hermes_t_${suffix}` };
  const handles: DatabaseHandle[] = [];
  const rename = (text: string) =>
    text
      .replace(/\bhermes_owner\b/g, names.owner)
      .replace(/\bhermes_app\b/g, names.app)
      // The login role and the database are both called `hermes` in the doc.
      .replace(/\bhermes\b/g, names.login);
  const statements = (block: string) =>
    rename(block)
      .split(/;\s*\n/)
      .map((s) => s.trim())
      .filter(Boolean);
  const open = async (user: string) => {
    const url = new URL(PG_ADMIN_URL);
    url.username = user;
    url.pathname = `/${names.login}`;
    const handle = await openDatabase({ databaseUrl: url.toString(), dataDir: "", logger: silentLogger() });
    handles.push(handle);
    return handle;
  };

  afterAll(async () => {
    for (const handle of handles) await handle.close().catch(() => undefined);
    await adminQuery(`DROP DATABASE IF EXISTS ${names.login} WITH (FORCE)`);
    for (const role of [names.login, names.app, names.owner]) await adminQuery(`DROP ROLE IF EXISTS ${role}`);
  });

  it("give the app role exactly its rights, with the migrations", async () => {
    const [roles, grants] = roleSql();
    expect(roles).toContain("CREATE ROLE hermes_app NOLOGIN");
    expect(grants).toContain("GRANT SELECT, INSERT ON audit_log TO hermes_app");

    for (const statement of statements(roles!)) await adminQuery(statement);
    const owner = await open(names.owner);
    expect((await migrate(owner)).applied).toBeGreaterThan(0);
    // The owner may not create roles, so the migration left the role's rights to these statements.
    const before = await execSql(
      owner.db,
      `SELECT 1 FROM information_schema.role_table_grants WHERE grantee = '${names.app}'`,
    );
    expect(before).toEqual([]);
    for (const statement of statements(grants!)) await execSql(owner.db, statement);

    const app = await open(names.login);
    expect(await findAuditRoleRisk(app)).toBeUndefined();
    expect((await migrate(app)).applied).toBe(0);

    const rights = await execSql<{ table_name: string; privileges: string }>(
      app.db,
      `SELECT table_name, string_agg(privilege_type, ',' ORDER BY privilege_type) AS privileges
         FROM information_schema.role_table_grants
        WHERE grantee = '${names.app}' AND table_schema = 'public'
        GROUP BY table_name ORDER BY table_name`,
    );
    const tables = await execSql<{ tablename: string }>(
      owner.db,
      "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
    );
    expect(rights).toEqual(
      tables.map(({ tablename }) => ({
        table_name: tablename,
        privileges: tablename === "audit_log" ? "INSERT,SELECT" : "DELETE,INSERT,SELECT,UPDATE",
      })),
    );

    const audit = createAuditLog({ db: app.db });
    const row = await audit.append({ action: "tool.requested", tool: "search_tickets", actorId: "U0DEPLOY" });
    expect(
      await dbErrorText(execSql(app.db, `UPDATE audit_log SET tool = 'x' WHERE id = ${row.id}`)),
    ).toMatch(/permission denied/);
    expect(await dbErrorText(execSql(app.db, "DELETE FROM audit_log"))).toMatch(/permission denied/);
    await execSql(app.db, "DELETE FROM schedules");

    // A table a later migration adds (as the owner) gets the normal rights by default.
    await execSql(owner.db, "CREATE TABLE later_table (id int)");
    await execSql(app.db, "INSERT INTO later_table VALUES (1)");
    expect(await execSql(app.db, "UPDATE later_table SET id = 2 RETURNING id")).toEqual([{ id: 2 }]);
  });
});
