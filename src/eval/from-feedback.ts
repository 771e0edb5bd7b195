import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { resolveLevel } from "../policy/levels.ts";
import { redact, redactText } from "../policy/redact.ts";
import type { Database } from "../store/db.ts";
import { and, asc, eq, gte, inArray } from "../store/drizzle.ts";
import { runFeedback, runSteps, runs } from "../store/schema.ts";
import { createUserStore } from "../store/user-store.ts";

export interface DraftResult {
  written: string[];
  /** Drafts already there (a human may be finishing them): left as they are. */
  kept: string[];
}

interface ToolStep {
  name: string | null;
  args: unknown;
}

const argsOf = (data: unknown) =>
  data && typeof data === "object" && "args" in data ? (data as { args: unknown }).args : undefined;

/** A file name from a run id: only safe characters. */
const fileFor = (runId: string) => `${runId.replace(/[^A-Za-z0-9_-]/g, "_")}.yaml`;

function draftText(run: {
  id: string;
  requestText: string | null;
  userId: string | null;
  channelId: string | null;
  level: string;
  downVotes: number;
  tools: ToolStep[];
}): string {
  const observed = run.tools.length
    ? run.tools.map((t) => `#   - ${t.name ?? "?"} ${JSON.stringify(redact(t.args ?? {}))}`)
    : ["#   (no tool calls)"];
  const header = [
    `# Draft scenario from run ${run.id}, rated 👎 ${run.downVotes} time(s).`,
    `# Requester ${run.userId ?? "unknown"} in ${run.channelId ?? "an unknown channel"}. The bot called:`,
    ...observed,
    "# TODO: a human must write what a good answer does: expect.calls (with argument matchers),",
    "# expect.forbidden, expect.approval / denial, expect.answer; add a `script:` with a good answer",
    "# for --scripted runs, then move this file from evals/drafts/ to evals/.",
  ];
  const body = {
    name: `feedback ${run.id}`,
    requester: run.level,
    ...(run.channelId && /^[CDG][A-Z0-9]+$/.test(run.channelId) ? { channel: run.channelId } : {}),
    // Recorded redacted already; redacted again, since drafts are meant to be committed.
    messages: [redactText(run.requestText?.trim() || "") || "TODO: the request (it was not recorded)"],
    expect: { calls: [], forbidden: [] },
  };
  return `${header.join("\n")}\n${stringify(body)}`;
}

/**
 * Turns 👎-rated runs since `since` into draft scenario files under `dir`: the request, the
 * requester's level and the calls the bot made (as comments), with TODOs where a human must write
 * the expectations. One draft per run however many people rated it down.
 */
export async function draftsFromFeedback(options: {
  db: Database;
  since: Date;
  dir: string;
  admins: readonly string[];
}): Promise<DraftResult> {
  const { db } = options;
  const rows = await db
    .select({
      id: runs.id,
      requestText: runs.requestText,
      userId: runs.userId,
      channelId: runs.channelId,
    })
    .from(runFeedback)
    .innerJoin(runs, eq(runs.id, runFeedback.runId))
    .where(and(eq(runFeedback.value, "down"), gte(runFeedback.updatedAt, options.since)))
    .orderBy(asc(runFeedback.updatedAt));
  const byRun = new Map<string, (typeof rows)[number] & { downVotes: number }>();
  for (const r of rows) {
    const seen = byRun.get(r.id);
    if (seen) seen.downVotes++;
    else byRun.set(r.id, { ...r, downVotes: 1 });
  }
  const result: DraftResult = { written: [], kept: [] };
  if (byRun.size === 0) return result;
  const steps = await db
    .select({ runId: runSteps.runId, name: runSteps.name, data: runSteps.data })
    .from(runSteps)
    .where(and(eq(runSteps.kind, "tool"), inArray(runSteps.runId, [...byRun.keys()])))
    .orderBy(asc(runSteps.runId), asc(runSteps.seq));
  const users = createUserStore({ db });
  mkdirSync(options.dir, { recursive: true });
  for (const run of byRun.values()) {
    const path = join(options.dir, fileFor(run.id));
    if (existsSync(path)) {
      result.kept.push(path);
      continue;
    }
    const level = run.userId
      ? resolveLevel({
          userId: run.userId,
          admins: options.admins,
          stored: (await users.get(run.userId))?.level ?? null,
        })
      : "user";
    const tools = steps
      .filter((s) => s.runId === run.id)
      .map((s) => ({ name: s.name, args: argsOf(s.data) }));
    writeFileSync(path, draftText({ ...run, level, tools }), { flag: "wx" });
    result.written.push(path);
  }
  return result;
}
