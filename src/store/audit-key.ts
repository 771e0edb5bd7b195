import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ARGS_MAC_PREFIX } from "../core/args-hash.ts";
import { HermesError } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";

/** Where the embedded default keeps its generated key. */
export const AUDIT_KEY_FILE = "audit.key";

// Domain separation: one key, two uses that can never be confused with each other.
const ARGS_CONTEXT = "hermes-audit-args-v1\n";
const CHECKPOINT_CONTEXT = "hermes-audit-checkpoint-v1\n";

/**
 * The server key behind the audit log's HMACs. It never leaves the process: the audit log, its
 * exports and backups hold only HMACs, so whoever reads them cannot brute-force a phone number or
 * an id out of `args_sha256` without also holding this key.
 */
export interface AuditKey {
  /** `args_sha256` for a call: `hmac-sha256:` + hex HMAC of the call hash (`argsSha256(tool, args)`). */
  argsMac(callSha256: string): string;
  /** Hex HMAC of a checkpoint's canonical text. */
  signCheckpoint(text: string): string;
  /** Constant-time check of a checkpoint signature. */
  checkCheckpoint(text: string, signature: string): boolean;
}

export function createAuditKey(secret: string | Buffer): AuditKey {
  const key = typeof secret === "string" ? Buffer.from(secret, "utf8") : secret;
  const mac = (context: string, text: string) =>
    createHmac("sha256", key)
      .update(context + text, "utf8")
      .digest("hex");
  return {
    argsMac: (callSha256) => ARGS_MAC_PREFIX + mac(ARGS_CONTEXT, callSha256),
    signCheckpoint: (text) => mac(CHECKPOINT_CONTEXT, text),
    checkCheckpoint(text, signature) {
      const expected = Buffer.from(mac(CHECKPOINT_CONTEXT, text), "hex");
      const given = /^[0-9a-f]{64}$/.test(signature) ? Buffer.from(signature, "hex") : Buffer.alloc(0);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}

export interface ResolveAuditKeyOptions {
  /** `HERMES_AUDIT_KEY`. */
  configured: string | undefined;
  /** `DATABASE_URL`: set means production, where the key must come from the environment. */
  databaseUrl: string | undefined;
  /** `HERMES_DATA_DIR`. */
  dataDir: string;
  logger?: Logger;
  /** Embedded default only: create the key file when missing (the app does; a reading CLI does not). */
  create?: boolean;
}

export const MISSING_KEY_MESSAGE =
  "HERMES_AUDIT_KEY is required with DATABASE_URL: it keys the audit log's args_sha256 and signs its " +
  "checkpoints, so it must live outside the database (set the same value on every replica, e.g. from " +
  "`openssl rand -base64 32`).";

/**
 * The audit key: `HERMES_AUDIT_KEY` when set. Embedded default (no `DATABASE_URL`): a random key
 * generated on first start in `$HERMES_DATA_DIR/audit.key` (mode 0600) and reused afterwards. With
 * `DATABASE_URL` and no key this refuses: a key stored in the same database would travel with every
 * dump and backup of the log it protects, and replicas must share one key anyway.
 */
export function resolveAuditKey(options: ResolveAuditKeyOptions): AuditKey {
  if (options.configured) return createAuditKey(options.configured);
  if (options.databaseUrl) throw new HermesError("config_invalid", MISSING_KEY_MESSAGE);
  return createAuditKey(embeddedKey(options));
}

function embeddedKey(options: ResolveAuditKeyOptions): string {
  const path = join(options.dataDir, AUDIT_KEY_FILE);
  const existing = readKeyFile(path, options.logger);
  if (existing) return existing;
  if (options.create === false) {
    throw new HermesError(
      "config_invalid",
      `No audit key yet at ${path}: start Hermes once (it generates one) or set HERMES_AUDIT_KEY.`,
    );
  }
  mkdirSync(options.dataDir, { recursive: true });
  const generated = randomBytes(32).toString("base64url");
  try {
    // "wx": created only if absent, so two processes starting at once cannot overwrite each other.
    writeFileSync(path, `${generated}\n`, { mode: 0o600, flag: "wx" });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    return readKeyFile(path, options.logger) ?? generated;
  }
  options.logger?.info({ path }, "generated the audit key (HERMES_AUDIT_KEY); keep it with the data");
  return generated;
}

function readKeyFile(path: string, logger: Logger | undefined): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8").trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  if (text.length < 32) throw new HermesError("config_invalid", `The audit key in ${path} is too short.`);
  if ((statSync(path).mode & 0o077) !== 0) {
    chmodSync(path, 0o600);
    logger?.warn({ path }, "the audit key file was readable by others; its mode is now 0600");
  }
  return text;
}
