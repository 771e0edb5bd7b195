import { parseArgs } from "node:util";
import { parseTimeBound } from "../../store/audit-time.ts";
import type { Database } from "../../store/db.ts";
import {
  describeStep,
  formatCost,
  formatMs,
  formatTokens,
  runStatusLabel,
  timeSplit,
} from "../../store/run-format.ts";
import {
  createRunQuery,
  MAX_RUN_PAGE,
  type RunDetail,
  type RunFilter,
  type RunSummary,
} from "../../store/run-query.ts";
import { RUN_STATUSES, type RunStatus } from "../../store/schema.ts";
import { type CliIo, type CliNames, UsageError } from "./cli-io.ts";

export const RUNS_USAGE = `Usage: npm run runs -- <command>

  show <run id>   one run: who asked what, how it ended, tokens, cost, where the time went,
                  and its timeline (model calls, tool calls, approvals, context trimming)
  list            recent runs, newest first
                  [--user U…] [--status answered|running|paused|failed|stopped]
                  [--since 24h|7d|30m|2025-03-01] [--limit 20 (at most ${MAX_RUN_PAGE})]

  --json          print JSON instead of text

Reads DATABASE_URL, else PGlite under HERMES_DATA_DIR/pg: through the running Hermes that owns it,\nif one does. Texts are stored redacted.
`;

export const RUNS_CLI: CliNames = { name: "runs", table: "runs", usage: RUNS_USAGE };

/** One `npm run runs` command, parsed. */
export type RunsCommand =
  | { command: "show"; id: string; json: boolean }
  | { command: "list"; filter: RunFilter; json: boolean };

/**
 * The command line as a command, or the exit code once the usage was printed (`--help`: 0, no
 * command: 2). A bad option throws `UsageError`. Touches no database.
 */
export function parseRunsArgs(argv: string[], io: CliIo): RunsCommand | number {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      user: { type: "string" },
      status: { type: "string" },
      since: { type: "string" },
      limit: { type: "string" },
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h" },
    },
  });
  const command = positionals[0];
  if (values.help || (command !== "show" && command !== "list")) {
    (values.help ? io.out : io.err)(RUNS_USAGE);
    return values.help ? 0 : 2;
  }
  const json = values.json ?? false;
  if (command === "show") {
    const id = positionals[1];
    if (!id) throw new UsageError("show needs a run id: npm run runs -- show <run id>");
    return { command, id, json };
  }
  return { command, filter: listFilter(values), json };
}

/** Exit codes: 0 ok, 1 no such run. */
export async function runRunsCommand(c: RunsCommand, db: Database, io: CliIo): Promise<number> {
  const runs = createRunQuery({ db });
  if (c.command === "show") {
    const run = await runs.get(c.id);
    if (!run) {
      io.err(`no run ${c.id}\n`);
      return 1;
    }
    io.out(c.json ? `${JSON.stringify(run, null, 2)}\n` : showText(run));
    return 0;
  }
  const list = await runs.list(c.filter);
  io.out(c.json ? `${JSON.stringify(list, null, 2)}\n` : listText(list));
  return 0;
}

function listFilter(values: {
  user?: string | undefined;
  status?: string | undefined;
  since?: string | undefined;
  limit?: string | undefined;
}): RunFilter {
  let status: RunStatus | undefined;
  if (values.status !== undefined) {
    const word = values.status === "answered" ? "completed" : values.status;
    if (!(RUN_STATUSES as readonly string[]).includes(word))
      throw new UsageError(`--status must be one of answered, running, paused, failed, stopped`);
    status = word as RunStatus;
  }
  let limit: number | undefined;
  if (values.limit !== undefined) {
    limit = Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RUN_PAGE)
      throw new UsageError(`--limit must be a whole number from 1 to ${MAX_RUN_PAGE}`);
  }
  return {
    ...(values.user ? { userId: values.user } : {}),
    ...(status ? { status } : {}),
    ...(values.since !== undefined ? { since: parseTimeBound(values.since) } : {}),
    ...(limit ? { limit } : {}),
  };
}

const time = (d: Date) => `${d.toISOString().slice(0, 19).replace("T", " ")}Z`;
const oneLine = (text: string, max: number) => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

function listText(list: RunSummary[]): string {
  if (list.length === 0) return "no runs match\n";
  const lines = list.map((r) =>
    [
      time(r.createdAt),
      r.runId,
      runStatusLabel(r.status).padEnd(8),
      (r.userId ?? "-").padEnd(11),
      `${r.steps} steps`,
      `${r.promptTokens + r.completionTokens} tok`,
      formatCost(r.costUsd),
      formatMs(r.wallMs),
      `+${r.feedback.up}/-${r.feedback.down}`,
      oneLine(r.requestText ?? "", 60),
    ].join("  "),
  );
  return `${lines.join("\n")}\n`;
}

function showText(r: RunDetail): string {
  const head = [
    `run       ${r.runId}`,
    `status    ${runStatusLabel(r.status)}${r.stopReason ? ` (${r.stopReason})` : ""}`,
    `session   ${r.sessionKey}`,
    `user      ${r.userId ?? "-"}   channel ${r.channelId ?? "-"}   thread ${r.threadTs ?? "-"}`,
    `request   ${oneLine(r.requestText ?? "-", 500)}`,
    `models    ${r.models.join(", ") || "-"}`,
    `counts    ${r.steps} steps, ${r.modelCalls} model calls, ${formatTokens(r.promptTokens, r.completionTokens)}, ${formatCost(r.costUsd)}`,
    `time      ${formatMs(r.wallMs)} wall: ${timeSplit(r)}`,
    `started   ${time(r.createdAt)}${r.finishedAt ? `   finished ${time(r.finishedAt)}` : ""}`,
    `feedback  up ${r.feedback.up}, down ${r.feedback.down}`,
    "",
    "timeline",
  ];
  const steps = r.timeline.map((s) => {
    const { what, status, details } = describeStep(s);
    const at = formatMs(Math.max(0, s.startedAt.getTime() - r.createdAt.getTime()));
    return `  ${String(s.seq).padStart(3)}  step ${s.step}  +${at}  ${what}${status ? ` [${status}]` : ""}  ${formatMs(s.durationMs)}${details.length ? `  ${oneLine(details.join(" · "), 400)}` : ""}`;
  });
  return `${[...head, ...(steps.length ? steps : ["  (no steps recorded)"])].join("\n")}\n`;
}
