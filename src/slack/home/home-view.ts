import type { Access } from "../../agent/run/policy-hook.ts";
import type { Approval } from "../../policy/approval-store.ts";
import { type ChannelProfile, DEFAULT_PROFILE_ID } from "../../profiles/channel-profile.ts";
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
  oneLine,
  section,
} from "../commands/block-builders.ts";
import { profileLine } from "../commands/profile-answer.ts";
import { toolLines } from "../commands/tools-blocks.ts";
import { PROFILE_NEW_ACTION, profileEditActionId } from "./profile-modal-view.ts";

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
  profiles?: {
    entries: ReadonlyArray<{ id: string; profile: ChannelProfile }>;
    file?: string | undefined;
    /** Channel names by id, for the Edit buttons (a channel not found shows its id). */
    names?: Readonly<Record<string, string>>;
  };
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
    : "Change them with `/hermes profile set …` in the channel (`default` for the default profile), or with Edit.";
  return [
    ...fitted(
      lines,
      PROFILES_CHARS,
      "No channel has a profile: every channel runs with Hermes's defaults.",
      "/hermes profile",
    ),
    ...profileButtons(profiles),
    context(how),
  ];
}

/** Slack's limit on elements in one actions block, and on a button's text. */
const ACTIONS_MAX = 25;
const BUTTON_TEXT_MAX = 75;

/** An "Edit" button per profile (default first) and "New channel profile", in actions blocks of 25. */
function profileButtons(profiles: NonNullable<AdminHomeData["profiles"]>): Block[] {
  const button = (text: string, actionId: string, value: string, primary = false) => ({
    type: "button" as const,
    action_id: actionId,
    text: { type: "plain_text" as const, text: oneLine(text, BUTTON_TEXT_MAX) },
    value,
    ...(primary ? { style: "primary" as const } : {}),
  });
  const hasDefault = profiles.entries.some((e) => e.id === DEFAULT_PROFILE_ID);
  const buttons = [
    ...profiles.entries.map(({ id }) =>
      button(
        id === DEFAULT_PROFILE_ID ? "Edit default" : `Edit #${profiles.names?.[id] ?? id}`,
        profileEditActionId(id),
        id,
      ),
    ),
    ...(hasDefault
      ? []
      : [button("Set the default", profileEditActionId(DEFAULT_PROFILE_ID), DEFAULT_PROFILE_ID)]),
    button("New channel profile", PROFILE_NEW_ACTION, "new", true),
  ];
  const blocks: Block[] = [];
  for (let i = 0; i < buttons.length; i += ACTIONS_MAX)
    blocks.push({ type: "actions", elements: buttons.slice(i, i + ACTIONS_MAX) } as Block);
  return blocks;
}
