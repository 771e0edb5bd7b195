import { AsyncLocalStorage } from "node:async_hooks";
import type { Logger } from "../../core/logger.ts";
import { isNoInstallation } from "./pg-installation-store.ts";
import type { TeamAuthorizer, TeamRef } from "./team-authorizer.ts";

/** What a workspace's own Slack output is built from: its token of the moment, its team, its bot. */
export interface TeamConnection {
  teamId: string;
  /** The bot token, asked as each call is sent (a rotated token is refreshed there). */
  token: () => Promise<string>;
  /** Who the bot is there (`BotIdentity`). */
  bot: { userId: string; botId?: string; teamId: string };
}

/**
 * One `SlackOutput` per installed workspace (its paced clients with their own rate budgets, as Slack
 * limits each workspace apart; its directory; its bot), made on first use and kept; and the team
 * whose work is running now (`run`: an `AsyncLocalStorage` entered where work starts: a Slack
 * request, a queue job), which the process's `SlackOutput` facade (`team-output-facade.ts`) follows.
 */
export function createSlackWorkspaces<Output extends object>(o: {
  authorizer: TeamAuthorizer;
  build: (team: TeamConnection) => Output;
  logger: Logger;
}) {
  const outputs = new Map<string, Output>();
  /** How each workspace was first seen (its org, and whether the org installed the app for all). */
  const refs = new Map<string, TeamRef>();
  const now = new AsyncLocalStorage<Output>();

  async function forTeam(ref: TeamRef): Promise<Output> {
    const seen = ref.teamId ? refs.get(ref.teamId) : undefined;
    const full: TeamRef = seen && !ref.enterpriseId ? seen : ref;
    // Asked every time (kept briefly by the authorizer): an uninstalled workspace has no output.
    const auth = await o.authorizer.authorize(full);
    const teamId = auth.teamId;
    const known = outputs.get(teamId);
    if (known) return known;
    const kept: TeamRef = { ...full, teamId };
    refs.set(teamId, kept);
    const output = o.build({
      teamId,
      token: async () => (await o.authorizer.authorize(kept)).botToken,
      bot: { userId: auth.botUserId ?? "", ...(auth.botId ? { botId: auth.botId } : {}), teamId },
    });
    outputs.set(teamId, output);
    o.logger.info({ teamId, enterpriseId: kept.enterpriseId }, "Slack workspace connected");
    return output;
  }

  return {
    forTeam,
    /** Runs `work` as `ref`'s workspace's; with no team (or one not installed) as nobody's. */
    async run<T>(ref: TeamRef | string | undefined, work: () => Promise<T>): Promise<T> {
      const team = typeof ref === "string" ? { teamId: ref } : ref;
      if (!team?.teamId && !team?.enterpriseId) return work();
      let output: Output | undefined;
      try {
        output = await forTeam(team);
      } catch (err) {
        o.logger.warn(
          { teamId: team.teamId, enterpriseId: team.enterpriseId, err: String(err) },
          "no Slack installation for this work's workspace",
        );
        return work();
      }
      return now.run(output, work);
    },
    /**
     * A Slack request's handling, as its workspace's; a request from a workspace with no installation
     * (uninstalled a moment ago) is not handled at all. Any other failure to find the token (the
     * database down) is thrown: the request fails and Slack delivers it again.
     */
    async handleRequest(ref: TeamRef | undefined, handle: () => Promise<void>): Promise<void> {
      if (!ref?.teamId && !ref?.enterpriseId) return handle();
      let output: Output;
      try {
        output = await forTeam(ref);
      } catch (err) {
        if (!isNoInstallation(err)) throw err;
        o.logger.info(
          { teamId: ref.teamId, enterpriseId: ref.enterpriseId, err: String(err) },
          "a Slack request from a workspace with no installation: ignored",
        );
        return;
      }
      return now.run(output, handle);
    },
    /** The workspace whose work is running, if any. */
    current(): Output | undefined {
      return now.getStore();
    },
    /** Every workspace connected so far. */
    connected(): Output[] {
      return [...outputs.values()];
    },
  };
}

/** The workspaces' outputs (a `SlackOutput` each, in `slack-output.ts`). */
export type SlackWorkspaces<Output extends object> = ReturnType<typeof createSlackWorkspaces<Output>>;
