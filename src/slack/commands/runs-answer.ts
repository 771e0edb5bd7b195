import type { Logger } from "../../core/logger.ts";
import { tenantKey } from "../../core/tenant.ts";
import { resolveAccess } from "../../policy/resolve-access.ts";
import type { Storage } from "../../storage.ts";
import { type AccessDeps, accessSourcesOf } from "../access-deps.ts";
import type { SlackMessagePayload } from "../answer-blocks.ts";
import type { SlackOutput } from "../slack-output.ts";
import { recordRefusal } from "./admin-refusal.ts";
import { clean } from "./audit-row-line.ts";
import { resolveAuditUser } from "./audit-user-filter.ts";
import { textMessage } from "./block-builders.ts";
import { parseRunFilters } from "./parse-run-filters.ts";
import { runListMessage } from "./run-list-blocks.ts";
import { runTimelineMessage } from "./run-timeline-blocks.ts";

/**
 * The one answer to a run id that names no run the caller may see: the same whether the run does
 * not exist, is someone else's or another team's, so the answer never tells that a run exists.
 */
export const runNotFound = (id: string) =>
  `I found no run \`${id}\` that you can see: only its requester and admins can. It may have been removed by retention; \`/hermes runs\` lists recent ones.`;
export const RUNS_REFUSAL =
  "Only admins can list other people's runs; `/hermes runs` without `user:` lists yours.";

export interface RunsServices extends AccessDeps {
  logger: Logger;
  storage: Pick<Storage, "users" | "runQuery" | "audit">;
  slack: Pick<SlackOutput, "slack">;
}

interface Caller {
  userId: string;
  teamId?: string | undefined;
  channelId?: string | undefined;
}

/** Runs shown per `/hermes runs`. */
export const RUNS_PAGE = 20;
const RUN_ID = /^[\w.:-]{1,100}$/;

/**
 * `/hermes run <id>`: the run's timeline, for admins or the run's requester. For anyone else the run
 * is read scoped to them (`runQuery.get(id, {requester})`), so a run that is not theirs and a run
 * that does not exist take the same path: the same query, the same audited refusal (logged and
 * audited like other refused commands), the same sentence.
 */
export async function runAnswer(s: RunsServices, caller: Caller, args: string): Promise<SlackMessagePayload> {
  const id = args.trim().replace(/^`+|`+$/g, "");
  if (!id)
    return textMessage(
      "Which run? Give its id, e.g. `/hermes run 3f2a9c1e-…` (the reference in a failure message is one).",
    );
  if (!RUN_ID.test(id))
    return textMessage(
      `:warning: \`${clean(id, 60)}\` is not a run id: copy it from a failure message's reference or from \`/hermes runs\`.`,
    );
  const access = await resolveAccess(accessSourcesOf(s), caller.userId);
  const admin = access.level === "admin";
  // Admins see their own team's runs; members their own runs. Another team's run reads as missing.
  const team = tenantKey(caller.teamId);
  const run = await s.storage.runQuery.get(id, admin ? { team } : { team, requester: caller.userId });
  if (!run) {
    const sentence = runNotFound(id);
    if (!admin) await recordRefusal(s, { ...caller, subcommand: "run", reason: sentence });
    return textMessage(sentence);
  }
  return runTimelineMessage(run);
}

/**
 * `/hermes runs [user:@x] [status:failed] [since:24h]`: recent runs newest first. Members see only
 * their own (asking for someone else's is refused); admins anyone's, everyone's by default.
 */
export async function runsAnswer(
  s: RunsServices,
  caller: Caller,
  args: string,
  now: Date = new Date(),
): Promise<SlackMessagePayload> {
  const parsed = parseRunFilters(args, now);
  if (!parsed.ok) return textMessage(`:warning: ${parsed.error}`);
  // A name (`user:@li.ming`) is looked up in the workspace as /hermes audit and the tools do.
  const named = await resolveAuditUser(s.slack.slack, parsed.filters, parsed.userName, "runs");
  if (!named.ok) return textMessage(`:warning: ${named.error}`);
  const filters = named.filters;
  const access = await resolveAccess(accessSourcesOf(s), caller.userId);
  const admin = access.level === "admin";
  if (!admin && filters.user && filters.user !== caller.userId) {
    await recordRefusal(s, { ...caller, subcommand: "runs", reason: RUNS_REFUSAL });
    return textMessage(RUNS_REFUSAL);
  }
  const userId = admin ? filters.user : caller.userId;
  const runs = await s.storage.runQuery.list({
    team: tenantKey(caller.teamId),
    ...(userId ? { userId } : {}),
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.since ? { since: filters.since } : {}),
    limit: RUNS_PAGE,
  });
  return runListMessage(runs, filters, !admin);
}
