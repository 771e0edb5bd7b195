import { z } from "zod";
import type { Env } from "../../config.ts";
import type { AuditLog } from "../../store/audit.ts";
import type { Database } from "../../store/db.ts";
import { AUDIT_CLI, parseAuditArgs, runAuditCommand } from "./audit-command.ts";
import { type CliIo, cliFailure } from "./cli-io.ts";
import { parseRunsArgs, RUNS_CLI, runRunsCommand } from "./runs-command.ts";

/** Where the server that owns the embedded data takes the CLIs' commands (loopback, with its token). */
export const ADMIN_CLI_PATH = "/_hermes/cli";

const checkpointInput = z.union([
  z.object({ where: z.string(), error: z.string() }),
  z.object({ where: z.string(), value: z.unknown() }),
]);

/** A command typed on this machine, sent to the running server to run against its live store. */
export const forwardedCliSchema = z.object({
  cli: z.enum(["runs", "audit"]),
  argv: z.array(z.string().max(1_000_000)).max(200),
  /** Who typed it (the `audit.queried` row records the OS user). */
  osUser: z.string().max(256).nullable(),
  /** `audit verify --checkpoint FILE`: the file as the typing user read it. */
  checkpoints: z.array(checkpointInput).optional(),
});
export type ForwardedCli = z.infer<typeof forwardedCliSchema>;

/** What the command printed and its exit code, as the CLI process prints and exits with it. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export const cliResultSchema = z.object({ code: z.number().int(), stdout: z.string(), stderr: z.string() });

/** The live store of the server that runs a forwarded command. */
export interface LiveStore {
  db: Database;
  audit: AuditLog;
  env: Env;
}

/**
 * Runs a forwarded command in the server exactly as the CLI would run it on its own (same parsing,
 * same output, same exit codes, same sentences for failures), against the server's live store: its
 * rows are current, and an `audit.queried` row goes into the chain the server writes.
 */
export async function runForwardedCli(request: ForwardedCli, live: LiveStore): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    out: (text) => {
      stdout += text;
    },
    err: (text) => {
      stderr += text;
    },
  };
  let code: number;
  try {
    if (request.cli === "runs") {
      const command = parseRunsArgs(request.argv, io);
      code = typeof command === "number" ? command : await runRunsCommand(command, live.db, io);
    } else {
      const command = parseAuditArgs(request.argv, io);
      code =
        typeof command === "number"
          ? command
          : await runAuditCommand(
              command,
              {
                db: live.db,
                env: live.env,
                osUser: request.osUser,
                audit: live.audit,
                ...(request.checkpoints ? { checkpoints: request.checkpoints } : {}),
              },
              io,
            );
    }
  } catch (err) {
    code = cliFailure(err, request.cli === "runs" ? RUNS_CLI : AUDIT_CLI, io);
  }
  return { code, stdout, stderr };
}
