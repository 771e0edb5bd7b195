import pino from "pino";
import { loadConfig } from "../config.ts";
import { createLogger } from "../core/logger.ts";
import { processIo, runCli } from "./commands/cli-io.ts";
import { parseRunsArgs, RUNS_CLI, runRunsCommand } from "./commands/runs-command.ts";
import { runOnStore } from "./store-access.ts";

/**
 * `npm run runs -- …`. Exit codes: 0 ok, 1 no such run, 2 usage or storage error. Embedded, while a
 * Hermes runs on the data, it runs the command (`store-access.ts`).
 */
async function main(argv: string[]): Promise<number> {
  const command = parseRunsArgs(argv, processIo);
  if (typeof command === "number") return command;
  const { env } = loadConfig();
  return runOnStore({
    env,
    logger: createLogger({ level: env.HERMES_LOG_LEVEL, destination: pino.destination(2) }),
    label: "npm run runs",
    forward: () => ({ cli: "runs", argv, osUser: null }),
    local: (handle) => runRunsCommand(command, handle.db, processIo),
    io: processIo,
  });
}

runCli(() => main(process.argv.slice(2)), RUNS_CLI);
