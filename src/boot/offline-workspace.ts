import { LogLevel, WebClient } from "@slack/web-api";
import type { Logger } from "../core/logger.ts";
import { SlackApiEmulator } from "../sandbox/slack-api-server.ts";
import { createWebSlackPort } from "../slack/web-slack-port.ts";
import { createAuditLog } from "../store/audit.ts";
import type { AuditKey } from "../store/audit-key.ts";
import { createAuditSink } from "../store/audit-sink.ts";
import { type OpenDatabaseOptions, openDatabase } from "../store/db.ts";
import { migrate } from "../store/migrate.ts";
import { createUserStore } from "../store/user-store.ts";
import { createPgResultStore } from "../tools/pg-result-store.ts";

export interface OfflineWorkspaceOptions {
  /** Where the embedded PGlite lives; the caller creates and removes it. */
  dataDir: string;
  logger: Logger;
  /** The one bot token the in-process Slack accepts. */
  botToken: string;
  /** Scrubs configured secrets and PII from audit rows, as the bot's audit log does. */
  redact: (value: unknown) => unknown;
  /** Who takes the data folder's owner lock (a folder a running server owns is refused). */
  owner?: OpenDatabaseOptions["owner"];
  /** The audit log's key; absent: one for this process. */
  auditKey?: AuditKey;
}

/**
 * What the bot's tools need to really run away from any real workspace or Postgres, for `npm run
 * agent` and `npm run eval`: embedded PGlite (migrated), the Slack Web API emulator's demo workspace
 * behind the real `SlackPort`, the user and result stores and the audit sink.
 */
export async function openOfflineWorkspace(o: OfflineWorkspaceOptions) {
  const emulator = new SlackApiEmulator({ logger: o.logger, tokens: [o.botToken] });
  let handle: Awaited<ReturnType<typeof openDatabase>> | undefined;
  try {
    handle = await openDatabase({
      dataDir: o.dataDir,
      logger: o.logger,
      ...(o.owner ? { owner: o.owner } : {}),
    });
    await migrate(handle);
    await emulator.start();
    const db = handle.db;
    const audit = createAuditLog({ db, ...(o.auditKey ? { key: o.auditKey } : {}) });
    const opened = handle;
    return {
      db,
      users: createUserStore({ db }),
      results: createPgResultStore({ db }),
      auditSink: createAuditSink({ audit, redact: o.redact }),
      slack: createWebSlackPort(
        new WebClient(o.botToken, {
          slackApiUrl: emulator.url,
          retryConfig: { retries: 0 },
          logLevel: LogLevel.ERROR,
        }),
      ),
      async close() {
        try {
          await emulator.stop();
        } finally {
          await opened.close();
        }
      },
    };
  } catch (err) {
    await emulator.stop().catch(() => undefined);
    await handle?.close().catch(() => undefined);
    throw err;
  }
}
