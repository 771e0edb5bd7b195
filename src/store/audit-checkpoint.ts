import { z } from "zod";
import { canonicalJson } from "../core/canonical-json.ts";
import { utcIso } from "./audit-chain.ts";
import type { AuditKey } from "./audit-key.ts";
import type { Database } from "./db.ts";
import { desc, eq } from "./drizzle.ts";
import { auditLog } from "./schema.ts";

/**
 * A signed statement "at time `at`, the audit log's newest row was `id` with hash `hash`". Kept
 * outside the database (a file, an admin channel), it shows what the chain alone cannot: that the
 * newest rows were later deleted (the row is gone) or deleted and rewritten (its hash differs).
 */
export const auditCheckpointSchema = z.object({
  v: z.literal(1),
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

const signedText = ({ v, id, hash, createdAt, at }: Omit<AuditCheckpoint, "sig">) =>
  canonicalJson({ v, id, hash, createdAt, at });

export function signCheckpoint(
  key: AuditKey,
  head: { id: number; hash: string; createdAt: string },
  at: Date,
): AuditCheckpoint {
  const body = {
    v: 1 as const,
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
    .where(eq(auditLog.id, cp.id));
  if (!row) {
    const [last] = await options.db
      .select({ id: auditLog.id })
      .from(auditLog)
      .orderBy(desc(auditLog.id))
      .limit(1);
    const end = last ? `the log now ends at row ${last.id}` : "the log is now empty";
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
