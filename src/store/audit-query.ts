import { z } from "zod";
import { HermesError } from "../core/errors.ts";
import { type AuditRow, auditRowColumns } from "./audit-chain.ts";
import type { Database } from "./db.ts";
import { and, desc, eq, gte, inArray, lt, or, type SQL, sql } from "./drizzle.ts";
import { AUDIT_ACTIONS, auditLog } from "./schema.ts";
import { ofTenant } from "./tenant-filter.ts";

export const MAX_AUDIT_PAGE = 1000;

export const auditQuerySchema = z.object({
  /**
   * One tenant's rows (`core/tenant.ts`: a team id; '' the rows without a team). Every reader in
   * Slack passes the asking team's; only the CLI reads across teams.
   */
  team: z.string().max(100).optional(),
  /** Rows where this Slack user is the requester (`user_id`) or the decider (`actor_id`). */
  user: z.string().min(1).optional(),
  /** Rows of turns in this conversation (`channel_id`: a channel or DM id). */
  channel: z.string().min(1).optional(),
  tool: z.string().min(1).optional(),
  action: z.union([z.enum(AUDIT_ACTIONS), z.array(z.enum(AUDIT_ACTIONS)).min(1)]).optional(),
  /** Inclusive lower bound on `created_at`. */
  since: z.coerce.date().optional(),
  /** Exclusive upper bound on `created_at`. */
  until: z.coerce.date().optional(),
  limit: z.number().int().min(1).max(MAX_AUDIT_PAGE).default(50),
  /** `nextCursor` of the previous page. */
  cursor: z.string().min(1).optional(),
});
export type AuditQuery = z.input<typeof auditQuerySchema>;

export interface AuditPage {
  rows: AuditRow[];
  /** Absent on the last page. */
  nextCursor?: string;
}

/** The position after a row: its exact timestamp text (microseconds) and id, opaque to callers. */
const cursorSchema = z.tuple([z.iso.datetime({ precision: 6 }), z.number().int()]);

export function encodeAuditCursor(row: Pick<AuditRow, "createdAt" | "id">): string {
  return Buffer.from(JSON.stringify([row.createdAt, row.id])).toString("base64url");
}

export function decodeAuditCursor(cursor: string): { createdAt: string; id: number } {
  try {
    const [createdAt, id] = cursorSchema.parse(JSON.parse(Buffer.from(cursor, "base64url").toString()));
    return { createdAt, id };
  } catch {
    throw new HermesError("bad_request", "That audit cursor is not valid; start again without --cursor.");
  }
}

/** Audit rows newest first, filtered; see `AuditLog.query`. */
export async function queryAudit(db: Database, input: AuditQuery): Promise<AuditPage> {
  const parsed = auditQuerySchema.safeParse(input);
  if (!parsed.success) {
    throw new HermesError("bad_request", `Invalid audit query: ${z.prettifyError(parsed.error)}`);
  }
  const q = parsed.data;
  const where: (SQL | undefined)[] = [];
  if (q.team !== undefined) where.push(ofTenant(auditLog.teamId, q.team));
  if (q.user) where.push(or(eq(auditLog.userId, q.user), eq(auditLog.actorId, q.user)));
  if (q.channel) where.push(eq(auditLog.channelId, q.channel));
  if (q.tool) where.push(eq(auditLog.tool, q.tool));
  if (typeof q.action === "string") where.push(eq(auditLog.action, q.action));
  else if (q.action) where.push(inArray(auditLog.action, q.action));
  if (q.since) where.push(gte(auditLog.createdAt, q.since.toISOString()));
  if (q.until) where.push(lt(auditLog.createdAt, q.until.toISOString()));
  if (q.cursor) {
    const after = decodeAuditCursor(q.cursor);
    where.push(
      sql`(${auditLog.createdAt}, ${auditLog.id}) < (${after.createdAt}::timestamptz, ${after.id}::bigint)`,
    );
  }
  const rows = await db
    .select(auditRowColumns)
    .from(auditLog)
    .where(and(...where))
    .orderBy(desc(auditLog.createdAt), desc(auditLog.id))
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  return rows.length > q.limit && last ? { rows: page, nextCursor: encodeAuditCursor(last) } : { rows: page };
}
