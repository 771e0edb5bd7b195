import type { Logger } from "../core/logger.ts";
import type { DatabaseHandle } from "./db.ts";
import { sql } from "./drizzle.ts";

export interface AuditRoleRisk {
  /** The role Hermes logged in as (`session_user`) and the one it acts as (`current_user`). */
  sessionRole: string;
  currentRole: string;
  /** Owner of `audit_log`. */
  owner: string;
  /** Why this connection can switch off the append-only triggers. */
  reasons: string[];
}

/**
 * Whether this connection can get around `audit_log`'s append-only triggers: a superuser, or a
 * member of the table's owner, can `ALTER TABLE audit_log DISABLE TRIGGER …` and then rewrite or
 * delete rows. Both the login role and the current role count: a superuser login that merely
 * `SET ROLE`s to `hermes_app` can `RESET ROLE`. Undefined when the connection is safe, or embedded
 * (PGlite is a local file; whoever can write it needs no trigger to bypass).
 */
export async function findAuditRoleRisk(handle: DatabaseHandle): Promise<AuditRoleRisk | undefined> {
  if (handle.kind === "pglite") return undefined;
  const result = await handle.db.execute<{
    session_role: string;
    current_role: string;
    owner: string;
    session_super: boolean;
    current_super: boolean;
    session_owns: boolean;
    current_owns: boolean;
  }>(sql`
    SELECT session_user::text AS session_role,
           current_user::text AS current_role,
           pg_get_userbyid(c.relowner)::text AS owner,
           (SELECT rolsuper FROM pg_roles WHERE rolname = session_user) AS session_super,
           (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS current_super,
           pg_has_role(session_user, c.relowner, 'MEMBER') AS session_owns,
           pg_has_role(current_user, c.relowner, 'MEMBER') AS current_owns
      FROM pg_class c
     WHERE c.oid = to_regclass('audit_log')`);
  const row = result.rows[0];
  if (!row) return undefined;
  const reasons: string[] = [];
  if (row.session_super) reasons.push(`"${row.session_role}" is a superuser`);
  else if (row.current_super) reasons.push(`"${row.current_role}" is a superuser`);
  else if (row.session_owns || row.current_owns) {
    const who = row.session_owns ? row.session_role : row.current_role;
    reasons.push(
      who === row.owner
        ? `"${who}" owns audit_log`
        : `"${who}" is a member of "${row.owner}", which owns audit_log`,
    );
  }
  if (reasons.length === 0) return undefined;
  return { sessionRole: row.session_role, currentRole: row.current_role, owner: row.owner, reasons };
}

/**
 * Logs a warning at start-up when Hermes connects as a role that can disable the audit triggers,
 * naming the role and what to do instead. Never stops Hermes: migrations (run at start-up) need the
 * owner, and a single-person setup may knowingly run as it.
 */
export async function warnAboutAuditRole(
  handle: DatabaseHandle,
  logger: Logger,
): Promise<AuditRoleRisk | undefined> {
  const risk = await findAuditRoleRisk(handle);
  if (!risk) return undefined;
  logger.warn(
    { role: risk.sessionRole, currentRole: risk.currentRole, owner: risk.owner },
    `audit log not protected from this connection: ${risk.reasons.join("; ")}, so it can disable ` +
      "audit_log's append-only triggers (ALTER TABLE … DISABLE TRIGGER) and rewrite or delete rows. " +
      "Run Hermes as a login role in hermes_app (INSERT and SELECT only on audit_log; README, " +
      '"The audit log") and keep the owner for `npm run db:migrate`.',
  );
  return risk;
}
