import { ConfigError } from "../config.ts";
import { errorMessage, isHermesError } from "../errors.ts";

/** A bad command line: the message, then the usage text, exit code 2. */
export class UsageError extends Error {}

/**
 * Runs a database CLI's `main` and sets the exit code: its own on success; 2 with the message and
 * `usage` for a bad command line (ours or `node:util` parseArgs'); 2 with one sentence for anything
 * else: a config or Hermes error as it is, a missing `table` as "run db:migrate first", any other
 * driver failure by the driver's own message (drizzle wraps it in "Failed query: <sql>").
 */
export function runCli(main: () => Promise<number>, o: { name: string; table: string; usage: string }): void {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      const code = (err as { code?: unknown }).code;
      if (err instanceof UsageError || (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS"))) {
        process.stderr.write(`${errorMessage(err)}\n\n${o.usage}`);
        process.exitCode = 2;
        return;
      }
      const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
      const message =
        err instanceof ConfigError || isHermesError(err)
          ? err.message
          : cause?.code === "42P01"
            ? `The ${o.table} table does not exist here; run \`npm run db:migrate\` first.`
            : `${o.name} failed: ${errorMessage(cause ?? err)}`;
      process.stderr.write(`${message}\n`);
      process.exitCode = 2;
    },
  );
}
