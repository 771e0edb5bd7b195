import type { Installation, InstallationQuery, InstallationStore } from "@slack/oauth";
import type { Logger } from "../../core/logger.ts";
import type { Database } from "../../store/db.ts";
import { and, eq, ne, sql } from "../../store/drizzle.ts";
import { slackInstallations, slackInstallationTeams } from "../../store/schema.ts";
import type { TokenCipher } from "./token-cipher.ts";

/** The secret part of an installation, sealed as one JSON text. */
interface Secrets {
  bot?: { token: string; refreshToken?: string | undefined; expiresAt?: number | undefined };
  user?: { token?: string | undefined; refreshToken?: string | undefined; expiresAt?: number | undefined };
  incomingWebhookUrl?: string;
}

type Row = typeof slackInstallations.$inferSelect;

/** The row key of an installation: `E:<enterprise>` for an org-wide install, `T:<team>` otherwise. */
export function installKeyOf(q: {
  isEnterpriseInstall?: boolean | undefined;
  enterpriseId?: string | undefined;
  teamId?: string | undefined;
}): string {
  if (q.isEnterpriseInstall) {
    if (!q.enterpriseId) throw new Error("an org-wide installation needs its enterprise id");
    return `E:${q.enterpriseId}`;
  }
  if (!q.teamId) throw new Error("a workspace installation needs its team id");
  return `T:${q.teamId}`;
}

/** No installation serves the workspace (never installed, or uninstalled). */
export class NoInstallationError extends Error {
  override name = "NoInstallationError";
}

/** Whether `err` (or what it wraps: `@slack/oauth` wraps the store's errors) says there is no installation. */
export function isNoInstallation(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 4; depth++) {
    if (e instanceof NoInstallationError) return true;
    e = (e as { original?: unknown; cause?: unknown }).original ?? (e as { cause?: unknown }).cause;
  }
  return false;
}

export interface PgInstallationStore extends InstallationStore {
  deleteInstallation(query: InstallationQuery<boolean>): Promise<void>;
  /** A workspace of an org-wide install, seen in its events: jobs naming only the team find the org. */
  rememberOrgTeam(teamId: string, enterpriseId: string): Promise<void>;
  /** Re-seals every row sealed with the previous key; returns how many. */
  resealAll(): Promise<number>;
}

/**
 * Bolt's installation store over `slack_installations` (`store/schema.ts`): tokens, refresh tokens and
 * their expiry sealed with AES-256-GCM (`token-cipher.ts`, the row's key bound as additional data, so
 * a sealed text copied to another row does not open), the rest plain. A row sealed with the previous
 * key is re-sealed with the current one when it is read. Nothing here logs a token.
 */
export function createPgInstallationStore(o: {
  db: Database;
  cipher: TokenCipher;
  logger: Logger;
}): PgInstallationStore {
  const { db, cipher } = o;
  const log = o.logger.child({ component: "slack-installations" });

  async function rowOf(key: string): Promise<Row | undefined> {
    const [row] = await db.select().from(slackInstallations).where(eq(slackInstallations.installKey, key));
    return row;
  }

  /** The org-wide install serving `teamId`, when its events named it before. */
  async function orgRowOfTeam(teamId: string): Promise<Row | undefined> {
    const [seen] = await db
      .select({ enterpriseId: slackInstallationTeams.enterpriseId })
      .from(slackInstallationTeams)
      .where(eq(slackInstallationTeams.teamId, teamId));
    return seen ? rowOf(`E:${seen.enterpriseId}`) : undefined;
  }

  async function find(q: InstallationQuery<boolean>): Promise<Row | undefined> {
    if (q.isEnterpriseInstall) return q.enterpriseId ? rowOf(`E:${q.enterpriseId}`) : undefined;
    const own = q.teamId ? await rowOf(`T:${q.teamId}`) : undefined;
    if (own) return own;
    if (q.enterpriseId) return rowOf(`E:${q.enterpriseId}`);
    return q.teamId ? orgRowOfTeam(q.teamId) : undefined;
  }

  async function reseal(row: Row, secrets: string): Promise<void> {
    await db
      .update(slackInstallations)
      .set({ secrets: cipher.seal(secrets, row.installKey), keyId: cipher.keyId, updatedAt: sql`now()` })
      .where(
        and(eq(slackInstallations.installKey, row.installKey), eq(slackInstallations.secrets, row.secrets)),
      );
  }

  function installationOf(row: Row, secrets: Secrets): Installation<"v2", boolean> {
    const team = row.teamId ? { id: row.teamId, ...(row.teamName ? { name: row.teamName } : {}) } : undefined;
    const enterprise = row.enterpriseId
      ? { id: row.enterpriseId, ...(row.enterpriseName ? { name: row.enterpriseName } : {}) }
      : undefined;
    return {
      team,
      enterprise,
      isEnterpriseInstall: row.isEnterpriseInstall,
      authVersion: "v2",
      tokenType: "bot",
      ...(row.appId ? { appId: row.appId } : {}),
      user: {
        id: row.installerUserId ?? "",
        token: secrets.user?.token,
        refreshToken: secrets.user?.refreshToken,
        expiresAt: secrets.user?.expiresAt,
        scopes: undefined,
      },
      ...(secrets.bot && row.botUserId
        ? {
            bot: {
              token: secrets.bot.token,
              ...(secrets.bot.refreshToken ? { refreshToken: secrets.bot.refreshToken } : {}),
              ...(secrets.bot.expiresAt !== undefined ? { expiresAt: secrets.bot.expiresAt } : {}),
              scopes: row.botScopes ?? [],
              id: row.botId ?? "",
              userId: row.botUserId,
            },
          }
        : {}),
      ...(secrets.incomingWebhookUrl ? { incomingWebhook: { url: secrets.incomingWebhookUrl } } : {}),
    } as Installation<"v2", boolean>;
  }

  return {
    async storeInstallation(installation) {
      const isEnterpriseInstall = Boolean(installation.isEnterpriseInstall);
      const key = installKeyOf({
        isEnterpriseInstall,
        enterpriseId: installation.enterprise?.id,
        teamId: installation.team?.id,
      });
      const secrets: Secrets = {
        ...(installation.bot
          ? {
              bot: {
                token: installation.bot.token,
                refreshToken: installation.bot.refreshToken,
                expiresAt: installation.bot.expiresAt,
              },
            }
          : {}),
        ...(installation.user?.token
          ? {
              user: {
                token: installation.user.token,
                refreshToken: installation.user.refreshToken,
                expiresAt: installation.user.expiresAt,
              },
            }
          : {}),
        ...(installation.incomingWebhook?.url
          ? { incomingWebhookUrl: installation.incomingWebhook.url }
          : {}),
      };
      const values = {
        installKey: key,
        enterpriseId: installation.enterprise?.id ?? null,
        teamId: isEnterpriseInstall ? null : (installation.team?.id ?? null),
        isEnterpriseInstall,
        appId: installation.appId ?? null,
        botUserId: installation.bot?.userId ?? null,
        botId: installation.bot?.id ?? null,
        teamName: installation.team?.name ?? null,
        enterpriseName: installation.enterprise?.name ?? null,
        installerUserId: installation.user?.id ?? null,
        botScopes: installation.bot?.scopes ?? null,
        secrets: cipher.seal(JSON.stringify(secrets), key),
        keyId: cipher.keyId,
      };
      const { installKey: _, ...update } = values;
      await db
        .insert(slackInstallations)
        .values(values)
        .onConflictDoUpdate({
          target: slackInstallations.installKey,
          set: { ...update, updatedAt: sql`now()` },
        });
      log.info({ installKey: key, isEnterpriseInstall }, "Slack installation stored");
    },

    async fetchInstallation(query) {
      const row = await find(query);
      if (!row) throw new NoInstallationError(`no Slack installation for ${describe(query)}`);
      const opened = cipher.open(row.secrets, row.installKey);
      if (opened.stale)
        await reseal(row, opened.plaintext).catch((err: unknown) =>
          log.warn({ installKey: row.installKey, err: String(err) }, "could not re-seal an installation"),
        );
      return installationOf(row, JSON.parse(opened.plaintext) as Secrets);
    },

    async deleteInstallation(query) {
      const row = await find(query);
      if (!row) return;
      await db.delete(slackInstallations).where(eq(slackInstallations.installKey, row.installKey));
      if (row.isEnterpriseInstall && row.enterpriseId)
        await db
          .delete(slackInstallationTeams)
          .where(eq(slackInstallationTeams.enterpriseId, row.enterpriseId));
      log.info({ installKey: row.installKey }, "Slack installation deleted");
    },

    async rememberOrgTeam(teamId, enterpriseId) {
      await db
        .insert(slackInstallationTeams)
        .values({ teamId, enterpriseId })
        .onConflictDoUpdate({
          target: slackInstallationTeams.teamId,
          set: { enterpriseId, seenAt: sql`now()` },
        });
    },

    async resealAll() {
      const rows = await db
        .select()
        .from(slackInstallations)
        .where(ne(slackInstallations.keyId, cipher.keyId));
      let resealed = 0;
      for (const row of rows) {
        const opened = cipher.open(row.secrets, row.installKey);
        await reseal(row, opened.plaintext);
        resealed++;
      }
      if (resealed > 0) log.info({ resealed }, "installations re-sealed with the current key");
      return resealed;
    },
  };
}

function describe(q: InstallationQuery<boolean>): string {
  if (q.isEnterpriseInstall) return `org ${q.enterpriseId ?? "?"}`;
  return `workspace ${q.teamId ?? "?"}${q.enterpriseId ? ` of org ${q.enterpriseId}` : ""}`;
}
