import type { PermissionLevel } from "../../core/permission-levels.ts";

export interface SuggestedPrompt {
  title: string;
  message: string;
}

const OPEN_TICKET: SuggestedPrompt = {
  title: "Open a ticket…",
  message: "Help me open a ticket. Ask me what it is about and how urgent it is.",
};
const WEEKLY_REPORT: SuggestedPrompt = {
  title: "Report of this week's tickets",
  message: "Give me a report of this week's tickets.",
};
const BY_ASSIGNEE: SuggestedPrompt = {
  title: "Tickets by assignee, last 30 days",
  message: "Give me a report of the last 30 days' tickets by assignee.",
};
const FIND_TICKET: SuggestedPrompt = {
  title: "Find a ticket…",
  message: "Help me find a ticket. Ask me what it is about.",
};

/**
 * The suggested prompts a new assistant thread offers, by the user's level: members (`user`) can
 * open tickets and get reports, admins also see who carries the load; a viewer only looks tickets
 * up. Each is backed by a tool its level may use (test/cli/front-door-prompts.test.ts). Slack shows
 * at most four.
 */
export function suggestedPromptsFor(level: PermissionLevel): SuggestedPrompt[] {
  if (level === "admin") return [OPEN_TICKET, WEEKLY_REPORT, BY_ASSIGNEE];
  if (level === "user") return [OPEN_TICKET, WEEKLY_REPORT];
  return [FIND_TICKET];
}
