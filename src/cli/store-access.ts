import type { Env } from "../config.ts";
import { errorMessage, HermesError } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import {
  type AdminAccess,
  CLI_LOCK_WAIT_MS,
  DataDirBusyError,
  type LockHolder,
} from "../store/data-dir-lock.ts";
import { type DatabaseHandle, openDatabase } from "../store/db.ts";
import type { CliIo } from "./commands/cli-io.ts";
import { ADMIN_CLI_PATH, cliResultSchema, type ForwardedCli } from "./commands/forwarded-cli.ts";

export interface StoreCommand {
  env: Env;
  logger: Logger;
  /** As typed, for the sentence another process shows: `npm run audit`. */
  label: string;
  /** The command for the running server, when one owns the embedded data. */
  forward: () => ForwardedCli;
  /** The command run here, on the database this process opened. */
  local: (handle: DatabaseHandle) => Promise<number>;
  io: CliIo;
}

/**
 * Runs a database command where the data is. `DATABASE_URL`: on Postgres, directly. Embedded: the
 * process that owns `HERMES_DATA_DIR` runs it; a running Hermes does, over its loopback admin
 * endpoint with the token from the lock (fresh rows, and its own audit chain records the read);
 * with none running, this process takes the lock for its lifetime (a Hermes started meanwhile
 * refuses) and opens PGlite itself.
 */
export async function runOnStore(c: StoreCommand): Promise<number> {
  let handle: DatabaseHandle;
  try {
    handle = await openDatabase({
      databaseUrl: c.env.DATABASE_URL,
      dataDir: c.env.HERMES_DATA_DIR,
      logger: c.logger,
      preparedStatements: c.env.HERMES_PG_PREPARE === "on",
      owner: { role: "cli", command: c.label, waitMs: CLI_LOCK_WAIT_MS },
    });
  } catch (err) {
    if (err instanceof DataDirBusyError && err.admin)
      return forward(err.admin, err.holder, c.forward(), c.io);
    throw err;
  }
  try {
    return await c.local(handle);
  } finally {
    await handle.close();
  }
}

/** Sends the command to the running server and prints what it printed; its exit code is ours. */
async function forward(
  admin: AdminAccess,
  holder: Pick<LockHolder, "pid">,
  request: ForwardedCli,
  io: CliIo,
): Promise<number> {
  const who = `the Hermes that owns the embedded data (pid ${holder.pid}, ${admin.url})`;
  let status: number;
  let text: string;
  try {
    const res = await fetch(new URL(ADMIN_CLI_PATH, admin.url), {
      method: "POST",
      headers: { authorization: `Bearer ${admin.token}`, "content-type": "application/json" },
      body: JSON.stringify(request),
    });
    status = res.status;
    text = await res.text();
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    throw new HermesError(
      "storage_unavailable",
      `Could not reach ${who} (${cause?.code ?? errorMessage(err)}); if it is stopping, run the command again once it has stopped.`,
    );
  }
  if (status !== 200) {
    throw new HermesError(
      "storage_unavailable",
      `${capitalized(who)} refused the command (HTTP ${status}: ${text.slice(0, 200).trim()}).`,
    );
  }
  const result = cliResultSchema.safeParse(safeJson(text));
  if (!result.success)
    throw new HermesError("storage_unavailable", `${capitalized(who)} sent an answer that is not a result.`);
  io.out(result.data.stdout);
  io.err(result.data.stderr);
  return result.data.code;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
