import type { WebClient } from "@slack/web-api";
import type { Redactor } from "../policy/redact.ts";
import type { SlackPort } from "../tools/slack-port.ts";
import type { OAuthInstall } from "./oauth/oauth-install.ts";
import type { SlackWorkspaces } from "./oauth/slack-workspaces.ts";
import type { WorkspaceDirectory } from "./references/workspace-directory.ts";

/** Who the bot is in its workspace (`auth.test`). */
export interface BotIdentity {
  userId: string;
  botId?: string;
  teamId: string;
}

/** How Hermes speaks in Slack: the Web API clients, the tools' port, the bot's identity, and redaction of what it posts. */
export interface SlackOutput {
  /**
   * The bot's Web API client (`SLACK_API_URL` applied), paced to Slack's rate limits per method and
   * channel (`slack/rate-limit/`): calls wait their turn, a 429 is waited out and retried, and pauses
   * only its own budget. A few bounded retries of network errors.
   */
  client: WebClient;
  /**
   * The same budgets, for progress updates only: they go after the calls that must, a newer update of
   * a message replaces a queued one, and a rate-limited one is dropped, so progress never delays an answer.
   */
  progressClient: WebClient;
  slack: SlackPort;
  /** The workspace directory behind `slack`'s name look-ups, kept fresh by Slack's events (`registerDirectoryEvents`). */
  directory?: WorkspaceDirectory;
  /** Redaction with the process's secret values: credentials leave answers and cards (`redactSecrets`). */
  redactor: Redactor;
  bot: BotIdentity;
  /**
   * OAuth installs (any number of workspaces and orgs): the install routes and Bolt's `authorize`, and
   * each workspace's own output; every part above then follows the workspace whose work is running
   * (`workspaces.run`). Absent with one workspace.
   */
  installs?: { install: OAuthInstall; workspaces: SlackWorkspaces<SlackOutput> };
}
