import { ConfigError } from "../../config.ts";
import { errorMessage, isHermesError } from "../../core/errors.ts";

/** A bad command line: the message, then the usage text, exit code 2. */
export class UsageError extends Error {}

/** Where a CLI writes: the process's stdout and stderr, or a buffer sent back over HTTP. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

export const processIo: CliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

export interface CliNames {
  name: string;
  table: string;
  usage: string;
}

/**
 * Runs a database CLI's `main` and sets the exit code: its own on success, else `cliFailure`'s.
 */
export function runCli(main: () => Promise<number>, o: CliNames): void {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.exitCode = cliFailure(err, o, processIo);
    },
  );
}

/**
 * What a failed command prints, and its exit code: 2 with the message and `usage` for a bad command
 * line (ours or `node:util` parseArgs'); 2 with one sentence for anything else: a config or Hermes
 * error as it is, a missing `table` as "run db:migrate first", any other driver failure by the
 * driver's own message (drizzle wraps it in "Failed query: <sql>").
 */
export function cliFailure(err: unknown, o: CliNames, io: CliIo): number {
  const code = (err as { code?: unknown }).code;
  if (err instanceof UsageError || (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS"))) {
    io.err(`${errorMessage(err)}\n\n${o.usage}`);
    return 2;
  }
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
  const message =
    err instanceof ConfigError || isHermesError(err)
      ? err.message
      : cause?.code === "42P01"
        ? `The ${o.table} table does not exist here; run \`npm run db:migrate\` first.`
        : `${o.name} failed: ${errorMessage(cause ?? err)}`;
  io.err(`${message}\n`);
  return 2;
}
