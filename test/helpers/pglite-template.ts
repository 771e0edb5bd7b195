import { cp, mkdir, mkdtemp, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { silentLogger } from "../../src/core/logger.ts";
import { openDatabase } from "../../src/store/db.ts";
import { migrate } from "../../src/store/migrate.ts";

/**
 * A migrated PGlite data directory, made once per test run and copied for each test store.
 *
 * A new PGlite database runs `initdb` inside its WebAssembly Postgres: ~3 s on this 2-core machine,
 * against ~1 s to copy a migrated directory and open it. The suite opens dozens, so each test run
 * builds the template once, at the first PGlite store it needs (a run with no PGlite test pays
 * nothing), under the folder the global setup names and removes (`test/setup/pglite-template.ts`).
 * Forks that need it at the same time each build one and rename it into place: the first rename wins,
 * the others remove theirs; a template is never changed once it is in place.
 */
let template: Promise<string> | undefined;

/** Copies the run's migrated template into `${dataDir}/pg`, where `openDatabase` looks for PGlite. */
export async function seedPgliteDataDir(dataDir: string, templateRoot: string): Promise<void> {
  template ??= templateIn(templateRoot);
  await cp(await template, join(dataDir, "pg"), { recursive: true });
}

async function templateIn(root: string): Promise<string> {
  const ready = join(root, "pg");
  if (await exists(ready)) return ready;
  await mkdir(root, { recursive: true });
  const building = await mkdtemp(join(root, "building-"));
  const handle = await openDatabase({ dataDir: building, logger: silentLogger() });
  try {
    await migrate(handle);
  } finally {
    await handle.close();
  }
  try {
    await rename(join(building, "pg"), ready);
  } catch (err) {
    // Another fork put its template in place first (a non-empty target): use that one.
    if (!(await exists(ready))) throw err;
  } finally {
    await rm(building, { recursive: true, force: true });
  }
  return ready;
}

/** A template in place: renamed there whole, so its Postgres version file means it is complete. */
async function exists(path: string): Promise<boolean> {
  try {
    await stat(join(path, "PG_VERSION"));
    return true;
  } catch {
    return false;
  }
}
