import { parseArgs } from "node:util";
import pino from "pino";
import { ConfigError, loadConfig } from "../config.ts";
import { errorMessage, isHermesError } from "../errors.ts";
import { createLogger } from "../logger.ts";
import { createAuditLog } from "./audit.ts";
import { type AuditFormat, auditRowsToCsv, auditRowsToTable } from "./audit-format.ts";
import { parseTimeBound } from "./audit-time.ts";
import { openDatabase } from "./db.ts";
import { AUDIT_ACTIONS, type AuditAction } from "./schema.ts";

const USAGE = `Usage: npm run audit -- <command>

  verify   walk the hash chain; exit 1 naming the first broken row
  head     print the newest row's id and hash (anchor it outside the database)
  query    [--user U…] [--tool NAME] [--action tool.executed[,tool.failed]]
           [--since 24h|7d|30m|2025-03-01] [--until …] [--limit 50] [--cursor C]
           [--format table|csv|json]

Reads DATABASE_URL (else PGlite under HERMES_DATA_DIR/pg).
`;

/** Exit codes: 0 ok, 1 chain broken, 2 usage or storage error. */
async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      user: { type: "string" },
      tool: { type: "string" },
      action: { type: "string" },
      since: { type: "string" },
      until: { type: "string" },
      limit: { type: "string" },
      cursor: { type: "string" },
      format: { type: "string", default: "table" },
      help: { type: "boolean", short: "h" },
    },
  });
  const command = positionals[0];
  if (values.help || !command || !["verify", "head", "query"].includes(command)) {
    (values.help ? process.stdout : process.stderr).write(USAGE);
    return values.help ? 0 : 2;
  }
  const format = values.format as AuditFormat;
  if (!["table", "csv", "json"].includes(format)) return usageError(`--format must be table, csv or json`);

  const { env } = loadConfig();
  const logger = createLogger({ level: env.HERMES_LOG_LEVEL, destination: pino.destination(2) });
  const handle = await openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.HERMES_DATA_DIR, logger });
  try {
    const audit = createAuditLog(handle);
    if (command === "verify") {
      const result = await audit.verify();
      if (!result.ok) {
        process.stderr.write(`audit chain BROKEN at row ${result.rowId}: ${result.reason}\n`);
        return 1;
      }
      process.stdout.write(`audit chain ok: ${result.rows} rows, head ${result.head}\n`);
      return 0;
    }
    if (command === "head") {
      const head = await audit.head();
      process.stdout.write(
        head
          ? `${format === "json" ? JSON.stringify(head) : `${head.hash}  (row ${head.id}, ${head.createdAt})`}\n`
          : "audit log is empty\n",
      );
      return 0;
    }
    const page = await audit.query({
      user: values.user,
      tool: values.tool,
      action: parseActions(values.action),
      since: values.since === undefined ? undefined : parseTimeBound(values.since),
      until: values.until === undefined ? undefined : parseTimeBound(values.until),
      limit: values.limit === undefined ? undefined : Number(values.limit),
      cursor: values.cursor,
    });
    if (format === "json") process.stdout.write(`${JSON.stringify(page, null, 2)}\n`);
    else process.stdout.write(format === "csv" ? auditRowsToCsv(page.rows) : auditRowsToTable(page.rows));
    if (page.nextCursor && format !== "json") {
      // stderr, so a CSV export piped to a file stays pure CSV.
      process.stderr.write(`more rows: add --cursor ${page.nextCursor}\n`);
    }
    return 0;
  } finally {
    await handle.close();
  }
}

function parseActions(text: string | undefined): AuditAction[] | undefined {
  if (text === undefined) return undefined;
  const actions = text.split(",").map((a) => {
    const action = a.trim();
    return action.startsWith("tool.") ? action : `tool.${action}`;
  });
  const unknown = actions.filter((a) => !(AUDIT_ACTIONS as readonly string[]).includes(a));
  if (unknown.length > 0) {
    throw new UsageError(`unknown --action ${unknown.join(", ")}; one of ${AUDIT_ACTIONS.join(", ")}`);
  }
  return actions as AuditAction[];
}

class UsageError extends Error {}

function usageError(message: string): number {
  process.stderr.write(`${message}\n\n${USAGE}`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const code = (err as { code?: unknown }).code;
    if (err instanceof UsageError || (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS"))) {
      process.exitCode = usageError(errorMessage(err));
      return;
    }
    // drizzle wraps driver errors ("Failed query: <sql>"); the driver's own message is the useful one.
    const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
    const message =
      err instanceof ConfigError || isHermesError(err)
        ? err.message
        : cause?.code === "42P01"
          ? "The audit_log table does not exist here; run `npm run db:migrate` first."
          : `audit failed: ${errorMessage(cause ?? err)}`;
    process.stderr.write(`${message}\n`);
    process.exitCode = 2;
  },
);
