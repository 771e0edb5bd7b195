import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One migrated PGlite directory per run, copied for each PGlite test store (~1 s instead of ~3 s).
    globalSetup: ["test/setup/pglite-template.ts"],
    // Ceilings that only bound a hang; they hold on a busy 2-core machine (CI shares one). A test that
    // starts a process sets its own, larger timeout (test/helpers/child-process.ts) above the helper's
    // ceiling, so the helper fails first and kills its child instead of vitest abandoning it.
    testTimeout: 60_000,
    // beforeAll hooks create databases, run migrations and start servers: slow when the machine is busy.
    hookTimeout: 180_000,
    teardownTimeout: 60_000,
    // Two cores: files run in parallel forks, each with its own database / Redis prefix.
    pool: "forks",
    maxWorkers: 2,
  },
});
