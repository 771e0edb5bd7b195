import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIGRATIONS_FOLDER, migrate } from "../../src/store/migrate.ts";
import { DRIVERS, dbErrorText, execSql, openTestStore, type TestStore } from "../helpers/pg.ts";

const TAG = "0012_ticket_attachments";

interface Journal {
  entries: Array<{ tag: string; when: number }>;
}

/** The journal's `when` of `tag`, and how many migrations run from it on (it included). */
async function journalFrom(tag: string): Promise<{ when: number; count: number }> {
  const journal = JSON.parse(
    await readFile(join(MIGRATIONS_FOLDER, "meta", "_journal.json"), "utf8"),
  ) as Journal;
  const at = journal.entries.findIndex((e) => e.tag === tag);
  expect(at).toBeGreaterThan(0);
  return { when: journal.entries[at]!.when, count: journal.entries.length - at };
}

describe.each(DRIVERS)(`${TAG} on %s`, (kind) => {
  let store: TestStore;
  // In a hook: the first PGlite store of a run builds the run's template.
  beforeAll(async () => {
    store = await openTestStore(kind);
  });
  afterAll(() => store?.cleanup());

  it("upgrades a database with tickets: each existing ticket has no attachments, never null", async () => {
    const db = store.handle.db;
    const { when, count } = await journalFrom(TAG);
    // Back to the schema before this migration (a fresh PGlite would take ~10 s to migrate from zero).
    // Later migrations, if any, are rewound too only in the journal table; they run again on top.
    await execSql(db, "ALTER TABLE tickets DROP COLUMN attachments");
    await execSql(db, `DELETE FROM drizzle.__drizzle_migrations WHERE created_at >= ${when}`);
    await execSql(
      db,
      `INSERT INTO tickets (title, created_by, comments)
        VALUES ('Printer jam', 'U1', '[{"by":"U1","at":"2026-01-01T00:00:00Z","text":"tray 2"}]')`,
    );

    expect(await migrate(store.handle)).toEqual({ applied: count });
    expect(await execSql(db, "SELECT title, comments, attachments FROM tickets")).toEqual([
      {
        title: "Printer jam",
        comments: [{ by: "U1", at: "2026-01-01T00:00:00Z", text: "tray 2" }],
        attachments: [],
      },
    ]);
    expect(await dbErrorText(execSql(db, "UPDATE tickets SET attachments = NULL"))).toContain("attachments");
  });
});
