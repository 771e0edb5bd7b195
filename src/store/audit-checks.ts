import { argsSha256 } from "../core/args-hash.ts";
import { describeTenant, type TenantKey } from "../core/tenant.ts";
import type { AuditLog } from "./audit.ts";
import { GENESIS_HASH } from "./audit-chain.ts";
import { type CheckpointInput, readCheckpointArg } from "./audit-checkpoint-file.ts";
import type { AuditKey } from "./audit-key.ts";
import type { Database } from "./db.ts";
import { eq } from "./drizzle.ts";
import { auditLog } from "./schema.ts";

export interface CliOutcome {
  code: 0 | 1;
  out: string;
}

/**
 * `verify [--team T] [--checkpoint …]`: every team's chain (or the one of `team`), then every
 * checkpoint given. A chain alone cannot see its newest rows deleted (what is left still links up); a
 * checkpoint whose row is gone or differs can. Exit 1 names the first broken row (and its chain) or
 * failing checkpoint. `checkpointArg` is `--checkpoint` as given, or its entries already read
 * (`readCheckpointArg`) where the command was typed.
 */
export async function verifyWithCheckpoints(
  audit: AuditLog,
  checkpointArg: string | CheckpointInput[] | undefined,
  team?: TenantKey,
): Promise<CliOutcome> {
  const chains = team === undefined ? await audit.chains() : [team];
  const lines: string[] = [];
  let rows = 0;
  let head = "";
  for (const each of chains) {
    const chain = await audit.verify({ team: each });
    if (!chain.ok) {
      return {
        code: 1,
        out: `audit chain BROKEN at row ${chain.rowId} (team ${describeTenant(each)}): ${chain.reason}\n`,
      };
    }
    rows += chain.rows;
    head = chain.head;
    lines.push(`  team ${describeTenant(each)}: ${chain.rows} rows, head ${chain.head}\n`);
  }
  // Several chains: the head of the whole log (its newest row); none: the genesis hash.
  if (chains.length !== 1) head = (await audit.head())?.hash ?? GENESIS_HASH;
  const ok = `audit chain ok: ${rows} rows, head ${head}\n${chains.length > 1 ? lines.join("") : ""}`;
  if (checkpointArg === undefined) return { code: 0, out: ok };
  const inputs = typeof checkpointArg === "string" ? readCheckpointArg(checkpointArg) : checkpointArg;
  let newest = "";
  for (const input of inputs) {
    if ("error" in input)
      return { code: 1, out: `${ok}checkpoint FAILED (${input.where}): ${input.error}\n` };
    const result = await audit.checkCheckpoint(input.value);
    const which = result.checkpoint
      ? `row ${result.checkpoint.id}, signed ${result.checkpoint.at}; ${input.where}`
      : input.where;
    if (!result.ok) return { code: 1, out: `${ok}checkpoint FAILED (${which}): ${result.reason}\n` };
    newest = which;
  }
  const n = inputs.length;
  return { code: 0, out: `${ok}${n} checkpoint${n === 1 ? "" : "s"} ok (last: ${newest})\n` };
}

/**
 * `check-args --row N --args JSON`: whether `args` are the arguments row N was written for. Needs the
 * audit key: `args_sha256` is `HMAC(key, argsSha256(tool, args))`, so only a key holder can test a guess.
 */
export async function checkArgsAgainstRow(
  options: { db: Database; key: AuditKey },
  rowId: number,
  args: unknown,
): Promise<CliOutcome> {
  const [row] = await options.db
    .select({ tool: auditLog.tool, argsSha256: auditLog.argsSha256 })
    .from(auditLog)
    .where(eq(auditLog.id, rowId));
  if (!row) return { code: 1, out: `no audit row ${rowId}\n` };
  if (!row.argsSha256) return { code: 1, out: `row ${rowId} records no arguments hash\n` };
  const callHash = argsSha256(row.tool, args);
  const expected = /^[0-9a-f]{64}$/.test(row.argsSha256) ? callHash : options.key.argsMac(callHash);
  return expected === row.argsSha256
    ? { code: 0, out: `row ${rowId}: the arguments match (${row.tool})\n` }
    : { code: 1, out: `row ${rowId}: the arguments do NOT match (${row.tool})\n` };
}
