import type { Config } from "../config.ts";
import { createIsAdmin } from "../policy/is-admin.ts";
import { ticketLinks } from "../slack/work-objects/ticket-links.ts";
import type { Storage } from "../storage.ts";
import { recordAuditRead } from "../store/audit-read.ts";
import type { SandboxSlack } from "./sandbox-slack.ts";

/**
 * What the sandbox page shows beside the conversations: the model line, the Runs panel, and the
 * audit feed (each opening of it is itself audited, as `/hermes audit` is).
 */
export function sandboxPage(
  storage: Pick<Storage, "audit" | "runQuery" | "users">,
  config: Config,
  modelInfo: string,
): Parameters<SandboxSlack["attachPage"]>[0] {
  return {
    modelInfo,
    unfurlDomains: [ticketLinks(config.env.HERMES_TICKET_URL_BASE).domain],
    runQuery: storage.runQuery,
    isAdmin: createIsAdmin({ users: storage.users, admins: config.env.HERMES_ADMINS }),
    auditFeed: async ({ reader, opened }) => {
      if (opened) {
        await recordAuditRead(storage.audit, {
          surface: "sandbox_page",
          actorId: reader,
          filters: { limit: 50 },
        });
      }
      const [page, verify] = await Promise.all([storage.audit.query({ limit: 50 }), storage.audit.verify()]);
      return {
        rows: page.rows,
        verify: verify.ok
          ? { ok: true, rows: verify.rows }
          : { ok: false, rowId: verify.rowId, reason: verify.reason },
      };
    },
  };
}
