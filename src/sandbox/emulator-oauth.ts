import { randomBytes } from "node:crypto";
import type { ApiArgs } from "./api-args.ts";
import { SlackApiError } from "./api-error.ts";
import type { Workspace } from "./workspace.ts";

/** What a token stands for: one workspace's install, or an org-wide install serving the org's workspaces. */
export type Installed = { kind: "team"; workspace: Workspace } | { kind: "org"; org: EmulatorOrg };
export type TokenGrant = Installed & { expiresAt?: number };

/** An Enterprise org: its id and name, and its workspaces (by team id). */
export interface EmulatorOrg {
  id: string;
  name: string;
  teams: Map<string, Workspace>;
}

/** The app's OAuth settings, as Slack holds them for a distributed app. */
export interface EmulatorOAuthOptions {
  clientId: string;
  clientSecret: string;
  /** The app's redirect URL, used when the authorize request names none. */
  redirectUri?: string;
  /**
   * Token rotation on: bot tokens expire and come with a refresh token. `expiresIn` (seconds) for the
   * token an install gives, `refreshedExpiresIn` for a refreshed one (12 hours by default, as Slack).
   */
  tokenRotation?: { expiresIn: number; refreshedExpiresIn?: number };
}

/** Who installs next: a workspace, or an org (org-wide); the installing user. */
export interface InstallTarget {
  teamId?: string;
  enterpriseId?: string;
  userId?: string;
}

/** What the OAuth side needs of the emulator: its workspaces and orgs, and registering minted tokens. */
interface OAuthHost {
  defaultWorkspace: () => Workspace;
  workspaceOf: (teamId: string) => Workspace | undefined;
  orgOf: (enterpriseId: string) => EmulatorOrg | undefined;
  grant: (token: string, grant: TokenGrant) => void;
  now: () => number;
}

interface PendingCode {
  target: InstallTarget;
  redirectUri: string | undefined;
  scopes: string;
}

interface Refreshable {
  grant: Installed;
  scopes: string;
}

const token = (prefix: string) => `${prefix}-${randomBytes(12).toString("hex")}`;

/**
 * Slack's OAuth v2 for the emulator: the authorize page (`GET /oauth/v2/authorize`, which at once
 * redirects to the redirect URL with a code and the state, as if the installer clicked Allow),
 * `oauth.v2.access` exchanging that code (a workspace or an org-wide install) or a refresh token
 * (`grant_type=refresh_token`, with token rotation on) for a new bot token, registered with the
 * emulator as it is minted.
 */
export class EmulatorOAuth {
  readonly options: EmulatorOAuthOptions;
  /** Who installs at the next authorize; the emulator's default workspace unless set. */
  nextInstall: InstallTarget = {};
  /** How many refresh-token grants were answered. */
  refreshes = 0;
  private readonly codes = new Map<string, PendingCode>();
  private readonly refreshTokens = new Map<string, Refreshable>();

  private readonly host: OAuthHost;

  constructor(options: EmulatorOAuthOptions, host: OAuthHost) {
    this.options = options;
    this.host = host;
  }

  /** The authorize page: where the browser goes next (302), or why not (400). */
  authorize(query: URLSearchParams): { status: 302; location: string } | { status: 400; error: string } {
    if (query.get("client_id") !== this.options.clientId) return { status: 400, error: "invalid_client_id" };
    const redirectUri = query.get("redirect_uri") ?? this.options.redirectUri;
    if (!redirectUri) return { status: 400, error: "no_redirect_uri" };
    const code = `${Date.now()}.${randomBytes(8).toString("hex")}`;
    this.codes.set(code, {
      target: { ...this.nextInstall },
      redirectUri: query.get("redirect_uri") ?? undefined,
      scopes: query.get("scope") ?? "",
    });
    const to = new URL(redirectUri);
    to.searchParams.set("code", code);
    const state = query.get("state");
    if (state !== null) to.searchParams.set("state", state);
    return { status: 302, location: to.toString() };
  }

  /** `oauth.v2.access`: a code or a refresh token for a bot token. */
  access(args: ApiArgs): Record<string, unknown> {
    if (args.client_id !== this.options.clientId || args.client_secret !== this.options.clientSecret)
      throw new SlackApiError("invalid_client_id");
    if (args.grant_type === "refresh_token") return this.refresh(String(args.refresh_token ?? ""));
    const pending = this.codes.get(String(args.code ?? ""));
    if (!pending) throw new SlackApiError("invalid_code");
    this.codes.delete(String(args.code));
    if (pending.redirectUri !== undefined && args.redirect_uri !== pending.redirectUri)
      throw new SlackApiError("bad_redirect_uri");
    const grant = this.grantOf(pending.target);
    return {
      ...this.mint(grant, pending.scopes),
      authed_user: { id: pending.target.userId ?? "U0ADMIN" },
    };
  }

  private grantOf(target: InstallTarget): Installed {
    if (target.enterpriseId && !target.teamId) {
      const org = this.host.orgOf(target.enterpriseId);
      if (!org) throw new SlackApiError("org_not_found");
      return { kind: "org", org };
    }
    const workspace = target.teamId ? this.host.workspaceOf(target.teamId) : this.host.defaultWorkspace();
    if (!workspace) throw new SlackApiError("team_not_found");
    return { kind: "team", workspace };
  }

  /** A refresh token is used once, as Slack's: the answer carries the next one. */
  private refresh(refreshToken: string): Record<string, unknown> {
    const known = this.refreshTokens.get(refreshToken);
    if (!known) throw new SlackApiError("invalid_refresh_token");
    this.refreshTokens.delete(refreshToken);
    this.refreshes++;
    return this.mint(known.grant, known.scopes, true);
  }

  /** A new bot token for `grant`, with its refresh token when rotation is on. */
  private mint(grant: Installed, scopes: string, refreshed = false) {
    const rotation = this.options.tokenRotation;
    const expiresIn = rotation
      ? refreshed
        ? (rotation.refreshedExpiresIn ?? 43_200)
        : rotation.expiresIn
      : undefined;
    const access = rotation ? token("xoxe.xoxb-1") : token("xoxb");
    this.host.grant(access, {
      ...grant,
      ...(expiresIn !== undefined ? { expiresAt: this.host.now() + expiresIn * 1000 } : {}),
    });
    const refresh = rotation ? token("xoxe-1") : undefined;
    if (refresh) this.refreshTokens.set(refresh, { grant, scopes });
    const bot = grant.kind === "team" ? grant.workspace.bot : firstOf(grant.org).bot;
    const team =
      grant.kind === "team" ? { id: grant.workspace.team.id, name: grant.workspace.team.name } : null;
    const enterpriseId = grant.kind === "org" ? grant.org.id : grant.workspace.team.enterpriseId;
    const enterprise =
      grant.kind === "org"
        ? { id: grant.org.id, name: grant.org.name }
        : enterpriseId
          ? { id: enterpriseId, name: enterpriseId }
          : null;
    return {
      access_token: access,
      token_type: "bot",
      scope: scopes,
      bot_user_id: bot.userId,
      app_id: bot.appId,
      team,
      enterprise,
      is_enterprise_install: grant.kind === "org",
      ...(refresh && expiresIn !== undefined ? { refresh_token: refresh, expires_in: expiresIn } : {}),
    };
  }
}

/** The first workspace of an org (whose bot user the org-wide install shares). */
export function firstOf(org: EmulatorOrg): Workspace {
  const first = org.teams.values().next().value;
  if (!first) throw new SlackApiError("org_has_no_workspaces");
  return first;
}
