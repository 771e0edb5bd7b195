import { parseArgs } from "node:util";
import type { Env } from "../../config.ts";
import type { TenantKey } from "../../core/tenant.ts";
import { type AuditLog, createAuditLog } from "../../store/audit.ts";
import {
  appendCheckpoint,
  type CheckpointInput,
  checkpointFilePath,
} from "../../store/audit-checkpoint-file.ts";
import { checkArgsAgainstRow, verifyWithCheckpoints } from "../../store/audit-checks.ts";
import { type AuditFormat, auditRowsToCsv, auditRowsToTable } from "../../store/audit-format.ts";
import { resolveAuditKey } from "../../store/audit-key.ts";
import type { AuditQuery } from "../../store/audit-query.ts";
import { recordAuditRead } from "../../store/audit-read.ts";
import { parseTimeBound } from "../../store/audit-time.ts";
import type { Database } from "../../store/db.ts";
import { AUDIT_ACTIONS, type AuditAction } from "../../store/schema.ts";
import { type CliIo, type CliNames, UsageError } from "./cli-io.ts";

export const AUDIT_USAGE = `Usage: npm run audit -- <command>

  verify      walk the hash chains (one per team); exit 1 naming the first broken row
              [--checkpoint FILE|JSON]  also check signed checkpoints (a JSONL file such as
              .hermes/audit-checkpoints.jsonl, or one as JSON): exit 1 if a checkpoint's row
              is gone or differs (the newest rows were deleted) or its signature is forged
  head        print the newest row's id and hash (anchor it outside the database)
  checkpoint  print a signed checkpoint of each team's head now (JSON lines; also appended to the file)
  check-args  --row N --args JSON: do these arguments match row N's args_sha256? (needs the key)
  query       [--user U…] [--channel C…|D…] [--tool NAME] [--action executed[,failed]|audit.queried]
              [--since 24h|7d|30m|2025-03-01] [--until …] [--limit 50] [--cursor C]
              [--format table|csv|json]   (the query itself is audited: audit.queried)

  --team T    verify, head, checkpoint and query: only team T's chain and rows (T a Slack team id,
              or '' for the rows written without a team and every row from before chains were per team)

Reads DATABASE_URL, else PGlite under HERMES_DATA_DIR/pg: through the running Hermes that owns it,
if one does. HERMES_AUDIT_KEY (embedded: the key Hermes generated under HERMES_DATA_DIR).
`;

export const AUDIT_CLI: CliNames = { name: "audit", table: "audit_log", usage: AUDIT_USAGE };

const COMMANDS = ["verify", "head", "checkpoint", "check-args", "query"] as const;
type Command = (typeof COMMANDS)[number];

/** One `npm run audit` command, parsed. */
export interface AuditCommand {
  command: Command;
  format: AuditFormat;
  /** `--checkpoint`: one checkpoint's JSON or a file of them (read where the command was typed). */
  checkpoint?: string;
  checkRow?: { id: number; args: unknown };
  query: AuditQuery;
  /** `--team`: one tenant's chain and rows (`core/tenant.ts`). */
  team?: TenantKey;
}

/** What an audit command runs against. */
export interface AuditContext {
  db: Database;
  env: Pick<Env, "DATABASE_URL" | "HERMES_AUDIT_KEY" | "HERMES_DATA_DIR" | "HERMES_AUDIT_CHECKPOINT_FILE">;
  /** The OS user who typed the command, recorded in the `audit.queried` row. */
  osUser: string | null;
  /** The running server's audit log (its key, its group commit); absent: one on `db`. */
  audit?: AuditLog;
  /** `--checkpoint`'s entries as read by the CLI process (a file it may read; the server may not). */
  checkpoints?: CheckpointInput[];
}

/**
 * The command line as a command, or the exit code once the usage was printed (`--help`: 0, no or an
 * unknown command: 2, a bad `--format`: 2). A bad option throws `UsageError`. Touches no database.
 */
export function parseAuditArgs(argv: string[], io: CliIo): AuditCommand | number {
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
      team: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const command = positionals[0] as Command | undefined;
  if (values.help || !command || !COMMANDS.includes(command)) {
    (values.help ? io.out : io.err)(AUDIT_USAGE);
    return values.help ? 0 : 2;
  }
  const format = values.format as AuditFormat;
  if (!["table", "csv", "json"].includes(format)) {
    io.err(`--format must be table, csv or json\n\n${AUDIT_USAGE}`);
    return 2;
  }
  return {
    command,
    format,
    ...(values.checkpoint !== undefined ? { checkpoint: values.checkpoint } : {}),
    ...(values.team !== undefined ? { team: values.team } : {}),
    ...(command === "check-args" ? { checkRow: parseRow(values.row, values.args) } : {}),
    query:
      command === "query"
        ? {
            user: values.user,
            channel: values.channel,
            tool: values.tool,
            action: parseActions(values.action),
            since: values.since === undefined ? undefined : parseTimeBound(values.since),
            until: values.until === undefined ? undefined : parseTimeBound(values.until),
            limit: values.limit === undefined ? undefined : Number(values.limit),
            cursor: values.cursor,
            team: values.team,
          }
        : {},
  };
}

/** Exit codes: 0 ok, 1 chain broken (or checkpoint failed, or args do not match). */
export async function runAuditCommand(c: AuditCommand, ctx: AuditContext, io: CliIo): Promise<number> {
  const { env } = ctx;
  // The key only where a signature or an HMAC is checked or made: reading rows needs none.
  const needsKey = c.command === "checkpoint" || c.command === "check-args" || c.checkpoint !== undefined;
  const key = needsKey
    ? resolveAuditKey({
        configured: env.HERMES_AUDIT_KEY,
        databaseUrl: env.DATABASE_URL,
        dataDir: env.HERMES_DATA_DIR,
        create: false,
      })
    : undefined;
  const audit = ctx.audit ?? createAuditLog({ db: ctx.db, key });
  if (c.command === "verify") {
    const result = await verifyWithCheckpoints(audit, ctx.checkpoints ?? c.checkpoint, c.team);
    (result.code === 0 ? io.out : io.err)(result.out);
    return result.code;
  }
  if (c.command === "check-args" && key && c.checkRow) {
    const result = await checkArgsAgainstRow({ db: ctx.db, key }, c.checkRow.id, c.checkRow.args);
    (result.code === 0 ? io.out : io.err)(result.out);
    return result.code;
  }
  if (c.command === "checkpoint") {
    const signed =
      c.team === undefined ? await audit.checkpoints() : [await audit.checkpoint(undefined, c.team)];
    const checkpoints = signed.filter((cp) => cp !== null);
    if (checkpoints.length === 0) {
      io.out(c.team === undefined ? "audit log is empty\n" : "this team's audit log is empty\n");
      return 0;
    }
    for (const checkpoint of checkpoints) {
      await appendCheckpoint(checkpointFilePath(env), checkpoint);
      io.out(`${JSON.stringify(checkpoint)}\n`);
    }
    return 0;
  }
  if (c.command === "head") {
    const head = await audit.head(c.team);
    io.out(
      head
        ? `${c.format === "json" ? JSON.stringify(head) : `${head.hash}  (row ${head.id}, ${head.createdAt})`}\n`
        : "audit log is empty\n",
    );
    return 0;
  }
  // Reading the log is audited; a read that cannot be recorded is not made.
  await recordAuditRead(audit, {
    surface: "npm run audit",
    actorId: null,
    filters: { ...JSON.parse(JSON.stringify(c.query)), osUser: ctx.osUser },
  });
  const page = await audit.query(c.query);
  if (c.format === "json") io.out(`${JSON.stringify(page, null, 2)}\n`);
  else io.out(c.format === "csv" ? auditRowsToCsv(page.rows) : auditRowsToTable(page.rows));
  if (page.nextCursor && c.format !== "json") {
    // stderr, so a CSV export piped to a file stays pure CSV.
    io.err(`more rows: add --cursor ${page.nextCursor}\n`);
  }
  return 0;
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
