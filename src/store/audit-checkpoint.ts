import { z } from "zod";
import { canonicalJson } from "../core/canonical-json.ts";
import { LEGACY_TENANT, type TenantKey } from "../core/tenant.ts";
import { utcIso } from "./audit-chain.ts";
import type { AuditKey } from "./audit-key.ts";
import type { Database } from "./db.ts";
import { and, desc, eq } from "./drizzle.ts";
import { auditLog } from "./schema.ts";

/**
 * A signed statement "at time `at`, the newest row of the chain `team` was `id` with hash `hash`".
 * Kept outside the database (a file, an admin channel), it shows what the chain alone cannot: that
 * its newest rows were later deleted (the row is gone) or deleted and rewritten (its hash differs).
 * `team` is absent for the '' chain (rows without a team, and every row from before chains were per
 * team), so checkpoints signed then still check.
 */
export const auditCheckpointSchema = z.object({
  v: z.literal(1),
  /** The chain's tenant key (`core/tenant.ts`); absent: the '' chain. */
  team: z.string().min(1).max(100).optional(),
  id: z.number().int().positive(),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  /** The row's `created_at`, as hashed. */
  createdAt: z.string(),
  /** When the checkpoint was signed (UTC ISO). */
  at: z.string(),
  /** Hex HMAC-SHA256 with the audit key over the canonical JSON of the other fields. */
  sig: z.string(),
});
export type AuditCheckpoint = z.infer<typeof auditCheckpointSchema>;

export type CheckpointResult =
  | { ok: true; checkpoint: AuditCheckpoint }
  | { ok: false; checkpoint?: AuditCheckpoint; reason: string };

const signedText = ({ v, team, id, hash, createdAt, at }: Omit<AuditCheckpoint, "sig">) =>
  canonicalJson(team === undefined ? { v, id, hash, createdAt, at } : { v, team, id, hash, createdAt, at });

const chainOf = (cp: Pick<AuditCheckpoint, "team">): TenantKey => cp.team ?? LEGACY_TENANT;

export function signCheckpoint(
  key: AuditKey,
  /** `chain` absent: the '' chain. */
  head: { id: number; hash: string; createdAt: string; chain?: TenantKey | undefined },
  at: Date,
): AuditCheckpoint {
  const body = {
    v: 1 as const,
    ...(!head.chain || head.chain === LEGACY_TENANT ? {} : { team: head.chain }),
    id: head.id,
    hash: head.hash,
    createdAt: head.createdAt,
    at: at.toISOString(),
  };
  return { ...body, sig: key.signCheckpoint(signedText(body)) };
}

/**
 * Checks one checkpoint against the database: its signature (made with this key), then that its row
 * is still there with the same hash. Together with an intact chain (`AuditLog.verify`), every row up
 * to the checkpoint is then exactly as it was when the checkpoint was signed.
 */
export async function checkCheckpoint(
  options: { db: Database; key: AuditKey },
  input: unknown,
): Promise<CheckpointResult> {
  const parsed = auditCheckpointSchema.safeParse(input);
  if (!parsed.success) return { ok: false, reason: "not a Hermes audit checkpoint (v1)" };
  const cp = parsed.data;
  if (!options.key.checkCheckpoint(signedText(cp), cp.sig)) {
    return {
      ok: false,
      checkpoint: cp,
      reason: "its signature does not verify: forged, altered, or signed with another HERMES_AUDIT_KEY",
    };
  }
  const [row] = await options.db
    .select({ hash: auditLog.hash, createdAt: utcIso(auditLog.createdAt) })
    .from(auditLog)
    .where(and(eq(auditLog.id, cp.id), eq(auditLog.chainId, chainOf(cp))));
  if (!row) {
    const [last] = await options.db
      .select({ id: auditLog.id })
      .from(auditLog)
      .where(eq(auditLog.chainId, chainOf(cp)))
      .orderBy(desc(auditLog.chainId), desc(auditLog.id))
      .limit(1);
    const whose = cp.team === undefined ? "the log" : `team ${cp.team}'s log`;
    const end = last ? `${whose} now ends at row ${last.id}` : `${whose} is now empty`;
    return {
      ok: false,
      checkpoint: cp,
      reason: `row ${cp.id} is missing: ${end}, so rows were deleted after ${cp.at}`,
    };
  }
  if (row.hash !== cp.hash || row.createdAt !== cp.createdAt) {
    return {
      ok: false,
      checkpoint: cp,
      reason: `row ${cp.id} differs from the checkpoint signed ${cp.at}: the rows up to it were deleted and rewritten`,
    };
  }
  return { ok: true, checkpoint: cp };
}
