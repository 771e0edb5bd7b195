import type { AuthorizeResult, InstallProvider } from "@slack/oauth";
import type { Logger } from "../../core/logger.ts";
import type { PgInstallationStore } from "./pg-installation-store.ts";

/** Whose work it is: a workspace (`teamId`), in an Enterprise org (`enterpriseId`), maybe installed org-wide. */
export interface TeamRef {
  teamId?: string | undefined;
  enterpriseId?: string | undefined;
  isEnterpriseInstall?: boolean | undefined;
}

/** An installation's bot token and who the bot is, for one workspace. */
export interface TeamAuthorization extends AuthorizeResult {
  botToken: string;
  teamId: string;
}

/** `@slack/oauth` refreshes a rotating token that expires within this long; the cache lets it. */
const REFRESH_WINDOW_MS = 2 * 3600_000;

/**
 * The bot token of a workspace, through `InstallProvider.authorize` (the installation store, and token
 * rotation: a token that expires within two hours is refreshed with `oauth.v2.access`
 * `grant_type=refresh_token` and stored again). Kept for `ttlMs` (never past the refresh window), and
 * asked once at a time per installation: concurrent turns of a workspace whose token is due share one
 * refresh. A workspace of an org-wide install is remembered (`rememberOrgTeam`) so jobs that name only
 * the team find the org's token.
 */
export function createTeamAuthorizer(o: {
  installer: Pick<InstallProvider, "authorize">;
  store: Pick<PgInstallationStore, "rememberOrgTeam">;
  logger: Logger;
  ttlMs?: number;
  now?: () => number;
}) {
  const ttlMs = o.ttlMs ?? 5 * 60_000;
  const now = o.now ?? Date.now;
  const cached = new Map<string, { auth: TeamAuthorization; until: number }>();
  const asking = new Map<string, Promise<TeamAuthorization>>();
  const knownOrgTeams = new Set<string>();

  /** Org-wide installs are one installation for all their workspaces: one key, one refresh. */
  const keyOf = (ref: TeamRef) =>
    ref.isEnterpriseInstall && ref.enterpriseId
      ? `E:${ref.enterpriseId}`
      : `T:${ref.teamId ?? ""}:${ref.enterpriseId ?? ""}`;

  async function ask(ref: TeamRef, key: string): Promise<TeamAuthorization> {
    const result = await o.installer.authorize({
      teamId: ref.teamId,
      enterpriseId: ref.enterpriseId,
      isEnterpriseInstall: Boolean(ref.isEnterpriseInstall),
    });
    const teamId = result.teamId ?? ref.teamId;
    if (!result.botToken || !teamId)
      throw new Error(`the Slack installation for ${key} has no bot token: install the app again`);
    const auth: TeamAuthorization = { ...result, botToken: result.botToken, teamId };
    const expiresAt = result.botTokenExpiresAt
      ? result.botTokenExpiresAt * 1000 - REFRESH_WINDOW_MS
      : Infinity;
    cached.set(key, { auth, until: Math.min(now() + ttlMs, expiresAt) });
    return auth;
  }

  async function remember(ref: TeamRef): Promise<void> {
    if (!ref.isEnterpriseInstall || !ref.teamId || !ref.enterpriseId || knownOrgTeams.has(ref.teamId)) return;
    await o.store.rememberOrgTeam(ref.teamId, ref.enterpriseId);
    knownOrgTeams.add(ref.teamId);
  }

  return {
    /** The workspace's authorization (teamId is the workspace's, also for an org-wide install). */
    async authorize(ref: TeamRef): Promise<TeamAuthorization> {
      await remember(ref).catch((err: unknown) =>
        o.logger.warn(
          { teamId: ref.teamId, err: String(err) },
          "could not remember a workspace of an org install",
        ),
      );
      const key = keyOf(ref);
      const hit = cached.get(key);
      const auth =
        hit && hit.until > now()
          ? hit.auth
          : await (asking.get(key) ??
              (() => {
                const p = ask(ref, key).finally(() => asking.delete(key));
                asking.set(key, p);
                return p;
              })());
      return ref.teamId && auth.teamId !== ref.teamId ? { ...auth, teamId: ref.teamId } : auth;
    },
    /** Drops what is kept of an installation (uninstalled, or a token Slack refused). */
    forget(ref: TeamRef): void {
      cached.delete(keyOf(ref));
    },
  };
}

export type TeamAuthorizer = ReturnType<typeof createTeamAuthorizer>;
