import { userInfo } from "node:os";
import pino from "pino";
import { loadConfig } from "../config.ts";
import { createLogger } from "../core/logger.ts";
import { readCheckpointArg } from "../store/audit-checkpoint-file.ts";
import { AUDIT_CLI, parseAuditArgs, runAuditCommand } from "./commands/audit-command.ts";
import { processIo, runCli } from "./commands/cli-io.ts";
import { runOnStore } from "./store-access.ts";

/**
 * `npm run audit -- …`. Exit codes: 0 ok, 1 chain broken (or checkpoint failed, or args do not
 * match), 2 usage or storage error. Embedded, while a Hermes runs on the data, it runs the command
 * (`store-access.ts`), so its `audit.queried` row lands in the chain that Hermes writes.
 */
async function main(argv: string[]): Promise<number> {
  const command = parseAuditArgs(argv, processIo);
  if (typeof command === "number") return command;
  const { env } = loadConfig();
  // A checkpoint file is read here, by the user who named it.
  const checkpoints = command.checkpoint === undefined ? undefined : readCheckpointArg(command.checkpoint);
  const osUser = currentOsUser();
  return runOnStore({
    env,
    logger: createLogger({ level: env.HERMES_LOG_LEVEL, destination: pino.destination(2) }),
    label: "npm run audit",
    forward: () => ({ cli: "audit", argv, osUser, ...(checkpoints ? { checkpoints } : {}) }),
    local: (handle) =>
      runAuditCommand(
        command,
        { db: handle.db, env, osUser, ...(checkpoints ? { checkpoints } : {}) },
        processIo,
      ),
    io: processIo,
  });
}

function currentOsUser(): string | null {
  try {
    return userInfo().username;
  } catch {
    return null;
  }
}

runCli(() => main(process.argv.slice(2)), AUDIT_CLI);
