import { userInfo } from "node:os";
import { parseArgs } from "node:util";
import pino from "pino";
import { loadConfig } from "../config.ts";
import { createLogger } from "../logger.ts";
import { createAuditLog } from "../store/audit.ts";
import { appendCheckpoint, checkpointFilePath } from "../store/audit-checkpoint-file.ts";
import { checkArgsAgainstRow, verifyWithCheckpoints } from "../store/audit-checks.ts";
import { type AuditFormat, auditRowsToCsv, auditRowsToTable } from "../store/audit-format.ts";
import { resolveAuditKey } from "../store/audit-key.ts";
import { recordAuditRead } from "../store/audit-query.ts";
import { parseTimeBound } from "../store/audit-time.ts";
import { openDatabase } from "../store/db.ts";
import { AUDIT_ACTIONS, type AuditAction } from "../store/schema.ts";
import { runCli, UsageError } from "./run-cli.ts";

const USAGE = `Usage: npm run audit -- <command>

  verify      walk the hash chain; exit 1 naming the first broken row
              [--checkpoint FILE|JSON]  also check signed checkpoints (a JSONL file such as
              .hermes/audit-checkpoints.jsonl, or one as JSON): exit 1 if a checkpoint's row
              is gone or differs (the newest rows were deleted) or its signature is forged
  head        print the newest row's id and hash (anchor it outside the database)
  checkpoint  print a signed checkpoint of the head now (JSON; also appended to the file)
  check-args  --row N --args JSON: do these arguments match row N's args_sha256? (needs the key)
  query       [--user U…] [--channel C…|D…] [--tool NAME] [--action executed[,failed]|audit.queried]
              [--since 24h|7d|30m|2025-03-01] [--until …] [--limit 50] [--cursor C]
              [--format table|csv|json]   (the query itself is audited: audit.queried)

Reads DATABASE_URL (else PGlite under HERMES_DATA_DIR/pg) and HERMES_AUDIT_KEY (embedded: the key
Hermes generated under HERMES_DATA_DIR).
`;

const COMMANDS = ["verify", "head", "checkpoint", "check-args", "query"];

/** Exit codes: 0 ok, 1 chain broken (or checkpoint failed, or args do not match), 2 usage or storage error. */
async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      user: { type: "string" },
      channel: { type: "string" },
      tool: { type: "string" },
      action: { type: "string" },
      since: { type: "string" },
      until: { type: "string" },
      limit: { type: "string" },
      cursor: { type: "string" },
      format: { type: "string", default: "table" },
      checkpoint: { type: "string" },
      row: { type: "string" },
      args: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const command = positionals[0];
  if (values.help || !command || !COMMANDS.includes(command)) {
    (values.help ? process.stdout : process.stderr).write(USAGE);
    return values.help ? 0 : 2;
  }
  const format = values.format as AuditFormat;
  if (!["table", "csv", "json"].includes(format)) return usageError(`--format must be table, csv or json`);

  const { env } = loadConfig();
  const checkRow = command === "check-args" ? parseRow(values.row, values.args) : undefined;
  // The key only where a signature or an HMAC is checked or made: reading rows needs none.
  const needsKey = command === "checkpoint" || command === "check-args" || values.checkpoint !== undefined;
  const key = needsKey
    ? resolveAuditKey({
        configured: env.HERMES_AUDIT_KEY,
        databaseUrl: env.DATABASE_URL,
        dataDir: env.HERMES_DATA_DIR,
        create: false,
      })
    : undefined;
  const logger = createLogger({ level: env.HERMES_LOG_LEVEL, destination: pino.destination(2) });
  const handle = await openDatabase({
    databaseUrl: env.DATABASE_URL,
    dataDir: env.HERMES_DATA_DIR,
    logger,
    preparedStatements: env.HERMES_PG_PREPARE === "on",
  });
  try {
    const audit = createAuditLog({ db: handle.db, key });
    if (command === "verify") {
      const result = await verifyWithCheckpoints(audit, values.checkpoint);
      (result.code === 0 ? process.stdout : process.stderr).write(result.out);
      return result.code;
    }
    if (command === "check-args" && key && checkRow) {
      const result = await checkArgsAgainstRow({ db: handle.db, key }, checkRow.id, checkRow.args);
      (result.code === 0 ? process.stdout : process.stderr).write(result.out);
      return result.code;
    }
    if (command === "checkpoint") {
      const checkpoint = await audit.checkpoint();
      if (!checkpoint) {
        process.stdout.write("audit log is empty\n");
        return 0;
      }
      await appendCheckpoint(checkpointFilePath(env), checkpoint);
      process.stdout.write(`${JSON.stringify(checkpoint)}\n`);
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
    const query = {
      user: values.user,
      channel: values.channel,
      tool: values.tool,
      action: parseActions(values.action),
      since: values.since === undefined ? undefined : parseTimeBound(values.since),
      until: values.until === undefined ? undefined : parseTimeBound(values.until),
      limit: values.limit === undefined ? undefined : Number(values.limit),
      cursor: values.cursor,
    };
    // Reading the log is audited; a read that cannot be recorded is not made.
    await recordAuditRead(audit, {
      surface: "npm run audit",
      actorId: null,
      filters: { ...JSON.parse(JSON.stringify(query)), osUser: osUser() },
    });
    const page = await audit.query(query);
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
    if (action === "queried") return "audit.queried";
    return action.includes(".") ? action : `tool.${action}`;
  });
  const unknown = actions.filter((a) => !(AUDIT_ACTIONS as readonly string[]).includes(a));
  if (unknown.length > 0) {
    throw new UsageError(`unknown --action ${unknown.join(", ")}; one of ${AUDIT_ACTIONS.join(", ")}`);
  }
  return actions as AuditAction[];
}

function parseRow(row: string | undefined, args: string | undefined): { id: number; args: unknown } {
  const id = Number(row);
  if (!Number.isSafeInteger(id) || id < 1) throw new UsageError("check-args needs --row N (an audit row id)");
  if (args === undefined) throw new UsageError("check-args needs --args '<the arguments as JSON>'");
  try {
    return { id, args: JSON.parse(args) as unknown };
  } catch {
    throw new UsageError('--args must be JSON, e.g. \'{"phone":"+8613800138000"}\'');
  }
}

function osUser(): string | null {
  try {
    return userInfo().username;
  } catch {
    return null;
  }
}

function usageError(message: string): number {
  process.stderr.write(`${message}\n\n${USAGE}`);
  return 2;
}

runCli(() => main(process.argv.slice(2)), { name: "audit", table: "audit_log", usage: USAGE });
