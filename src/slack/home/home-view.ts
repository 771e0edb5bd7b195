import type { Access } from "../../agent/run/policy-hook.ts";
import type { Approval } from "../../policy/approval-store.ts";
import type { ChannelProfile } from "../../profiles/channel-profile.ts";
import { formatScheduleList } from "../../schedules/format-schedules.ts";
import type { Schedule } from "../../schedules/schedule-store.ts";
import type { AuditRow } from "../../store/audit-chain.ts";
import type { Tool } from "../../tools/define-tool.ts";
import { type CardApproval, slackDate } from "../approval-card.ts";
import { approvalCardsBlocks } from "../commands/approvals-blocks.ts";
import { auditRowLine } from "../commands/audit-row-line.ts";
import {
  type Block,
  context,
  divider,
  fitLines,
  header,
  linesToSections,
  section,
} from "../commands/block-builders.ts";
import { profileLine } from "../commands/profile-answer.ts";
import { toolLines } from "../commands/tools-blocks.ts";

/** Slack's limit on blocks in a view. */
export const VIEW_MAX_BLOCKS = 100;
const TOOLS_CHARS = 6000;
const ROWS_CHARS = 8000;
const SCHEDULES_CHARS = 6000;
const APPROVALS_CHARS = 12_000;
const PROFILES_CHARS = 4000;

export interface AdminHomeData {
  /** Pending approvals this admin may decide, oldest first. */
  approvals: readonly Approval[];
  /** The newest audit rows, newest first. */
  audit: readonly AuditRow[];
  /** Undefined when schedules are not enabled. */
  schedules: readonly Schedule[] | undefined;
  /** The channel profiles, and the file they come from when `HERMES_PROFILES` is set; absent: not enabled. */
  profiles?: { entries: ReadonlyArray<{ id: string; profile: ChannelProfile }>; file?: string | undefined };
}

export interface HomeViewInput {
  access: Pick<Access, "userId" | "level" | "allowed">;
  tools: readonly Tool[];
  /** The user's recent requests (audit rows), newest first. */
  recent: readonly AuditRow[];
  /** Present for admins only. */
  admin?: AdminHomeData | undefined;
  /** The card's view of an approval (configured secret values removed). */
  toCard: (a: Approval) => CardApproval;
  now: Date;
}

/**
 * A user's App Home: what Hermes can do for them (their tools) and their recent requests; admins
 * also see pending approvals (as cards with the same Approve / Reject buttons), the newest audit
 * rows and the schedules. At most 100 blocks: the approval cards get what the rest leaves.
 */
export function homeView(input: HomeViewInput): { type: "home"; blocks: Block[] } {
  const { access, now } = input;
  const top: Block[] = [
    header("Hermes"),
    section(
      `Hi <@${access.userId}>. I plan with a language model and use the team's tools for you. Mention me in a channel or send me a direct message; risky actions wait for an Approve / Reject card. Your level: *${access.level}*. Type \`/hermes help\` for more.`,
    ),
    header("What I can do for you"),
    ...fitted(
      toolLines(input.tools, access),
      TOOLS_CHARS,
      "You may not use any tools yet. Ask an admin.",
      "/hermes tools",
    ),
    header("Your recent requests"),
    ...fitted(input.recent.map(auditRowLine), ROWS_CHARS, "No requests yet.", undefined),
  ];
  const footer = context(`Updated ${slackDate(now)}`);
  if (!input.admin) return { type: "home", blocks: [...top, footer] };

  const { admin } = input;
  const rest: Block[] = [
    header("Recent audit log"),
    ...fitted(admin.audit.map(auditRowLine), ROWS_CHARS, "The audit log is empty.", "/hermes audit"),
    header("Schedules"),
    ...scheduleBlocks(admin.schedules, now),
    ...(admin.profiles ? [header("Channel profiles"), ...profileBlocks(admin.profiles)] : []),
  ];
  const approvalsHead = [divider(), header(`Pending approvals (${admin.approvals.length})`)];
  const room = VIEW_MAX_BLOCKS - top.length - approvalsHead.length - rest.length - 1;
  const cards =
    admin.approvals.length === 0
      ? [section("Nothing is waiting for a decision.")]
      : approvalCardsBlocks(admin.approvals, input.toCard, { maxBlocks: room, maxChars: APPROVALS_CHARS });
  return { type: "home", blocks: [...top, ...approvalsHead, ...cards, ...rest, footer] };
}

function fitted(lines: string[], maxChars: number, empty: string, more: string | undefined): Block[] {
  if (lines.length === 0) return [section(empty)];
  const fit = fitLines(lines, maxChars);
  const blocks = linesToSections(fit.lines);
  if (fit.omitted > 0) blocks.push(context(`…and ${fit.omitted} more${more ? `: \`${more}\`` : "."}`));
  return blocks;
}

function scheduleBlocks(schedules: readonly Schedule[] | undefined, now: Date): Block[] {
  if (!schedules) return [section("Schedules are not enabled on this Hermes.")];
  const fit = fitLines(formatScheduleList(schedules, now).split("\n"), SCHEDULES_CHARS);
  const more = fit.omitted > 0 ? "More in `/hermes schedule list`. " : "";
  return [
    ...linesToSections(fit.lines),
    context(`${more}Manage them with \`/hermes schedule add|list|remove\`.`),
  ];
}

function profileBlocks(profiles: NonNullable<AdminHomeData["profiles"]>): Block[] {
  const lines = profiles.entries.map(({ id, profile }) => profileLine(id, profile));
  const how = profiles.file
    ? `Kept in the file ${profiles.file} (HERMES_PROFILES), which wins over Slack: change them there.`
    : "Change them with `/hermes profile set …` in the channel (`default` for the default profile).";
  return [
    ...fitted(
      lines,
      PROFILES_CHARS,
      "No channel has a profile: every channel runs with Hermes's defaults.",
      "/hermes profile",
    ),
    context(how),
  ];
}
