import pino from "pino";
import { ConfigError, loadConfig } from "../config.ts";
import { errorMessage } from "../core/errors.ts";
import { createLogger } from "../core/logger.ts";
import { CLI_LOCK_WAIT_MS, DataDirBusyError } from "../store/data-dir-lock.ts";
import { openDatabase } from "../store/db.ts";
import { migrate } from "../store/migrate.ts";

/** `npm run db:migrate`: applies pending migrations to DATABASE_URL, else to PGlite in HERMES_DATA_DIR. */
async function main(): Promise<void> {
  const { env } = loadConfig();
  const logger = createLogger({ level: env.HERMES_LOG_LEVEL, destination: pino.destination(2) });
  const handle = await openDatabase({
    databaseUrl: env.DATABASE_URL,
    dataDir: env.HERMES_DATA_DIR,
    logger,
    preparedStatements: env.HERMES_PG_PREPARE === "on",
    // Embedded: never beside a running Hermes (which applies pending migrations when it starts).
    owner: { role: "cli", command: "npm run db:migrate", waitMs: CLI_LOCK_WAIT_MS },
  });
  try {
    const { applied } = await migrate(handle);
    const where = handle.kind === "postgres" ? "Postgres" : `PGlite (${env.HERMES_DATA_DIR}/pg)`;
    process.stdout.write(
      applied === 0 ? `${where}: schema is up to date\n` : `${where}: applied ${applied} migration(s)\n`,
    );
  } finally {
    await handle.close();
  }
}

main().catch((err: unknown) => {
  // drizzle wraps driver errors ("Failed query: <sql>"); show the driver's reason too.
  const cause = (err as { cause?: unknown }).cause;
  const detail = cause === undefined ? errorMessage(err) : `${errorMessage(err)}\n${errorMessage(cause)}`;
  const plain = err instanceof ConfigError || err instanceof DataDirBusyError;
  process.stderr.write(`${plain ? err.message : `migration failed: ${detail}`}\n`);
  process.exitCode = 1;
});
