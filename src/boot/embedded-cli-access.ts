import { runForwardedCli } from "../cli/commands/forwarded-cli.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../core/logger.ts";
import type { HttpHandler } from "../http/route-server.ts";
import type { AuditLog } from "../store/audit.ts";
import type { DatabaseHandle } from "../store/db.ts";
import { adminCliRoute } from "./admin-cli-route.ts";

export interface EmbeddedCliAccess {
  /** The admin endpoint, served on PORT with the other routes. */
  route: HttpHandler;
  /** Once the server listens: its loopback URL goes into the lock, where the CLIs find it. */
  publish(port: number): void;
}

/**
 * Embedded default only (this process holds the data dir's lock): the CLIs' way to the live store.
 * Undefined on Postgres, where they connect themselves.
 */
export function embeddedCliAccess(
  storage: { handle: DatabaseHandle; audit: AuditLog },
  config: Config,
  logger: Logger,
): EmbeddedCliAccess | undefined {
  const { handle } = storage;
  if (handle.kind !== "pglite" || !handle.lock.token) return undefined;
  const { lock } = handle;
  let port: number | undefined;
  return {
    route: adminCliRoute({
      token: handle.lock.token,
      port: () => port,
      run: (request) => runForwardedCli(request, { db: handle.db, audit: storage.audit, env: config.env }),
      logger,
    }),
    publish(listening) {
      port = listening;
      try {
        lock.publish(`http://127.0.0.1:${listening}`);
      } catch (err) {
        logger.error(
          { err: String(err) },
          "could not write this server's address into the data dir's lock: the CLIs cannot reach it",
        );
      }
    },
  };
}
