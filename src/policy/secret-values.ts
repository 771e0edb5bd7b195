import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config.ts";
import { mcpSecretValues } from "../mcp/mcp-config.ts";
import { AUDIT_KEY_FILE } from "../store/audit-key.ts";
import { headerSecretValues } from "../tools/http/header-secrets.ts";

/**
 * The secret values this process holds (tokens, API keys, signing and audit keys, HTTP tool header
 * secrets, database and Redis passwords), collected once at start-up and passed to every redactor:
 * each is removed by exact value wherever it appears, even where no pattern would recognise it.
 * One instance per process, built in the composition root and handed down — not a global.
 */
export interface SecretValues {
  /** Adds values known only later (a generated key, the sandbox's tokens). Short values are ignored. */
  add(...values: Array<string | undefined | null>): void;
  /** The values and their encoded forms (URL-encoded, base64), longest first. */
  forms(): readonly string[];
  /** Changes whenever a value is added, so redactors know to rebuild what they derived. */
  readonly version: number;
}

/**
 * Shorter values are not matched by value: a 4-character "secret" would cut every occurrence of a
 * common word out of logs and answers. The patterns (`password=…`, `://user:pass@`) still apply.
 */
export const MIN_SECRET_LENGTH = 8;

export function createSecretValues(initial: Iterable<string | undefined | null> = []): SecretValues {
  const values = new Set<string>();
  let forms: string[] = [];
  let version = 0;
  const secrets: SecretValues = {
    add(...added) {
      let changed = false;
      for (const value of added) {
        const v = value?.trim();
        if (!v || v.length < MIN_SECRET_LENGTH || values.has(v)) continue;
        values.add(v);
        changed = true;
      }
      if (!changed) return;
      const all = new Set<string>();
      for (const v of values) for (const f of encodedForms(v)) all.add(f);
      forms = [...all].sort((a, b) => b.length - a.length);
      version++;
    },
    forms: () => forms,
    get version() {
      return version;
    },
  };
  secrets.add(...initial);
  return secrets;
}

/** The value as it appears raw, URL-encoded (both styles) and base64-encoded (standard and URL-safe). */
function encodedForms(value: string): string[] {
  const b64 = Buffer.from(value, "utf8").toString("base64");
  return [
    value,
    encodeURIComponent(value),
    new URLSearchParams({ v: value }).toString().slice(2),
    b64,
    b64.replace(/=+$/, ""),
    Buffer.from(value, "utf8").toString("base64url"),
  ];
}

// Any configured variable whose name says it holds a credential: the Slack tokens and signing secret,
// OPENAI_API_KEY, a fallback model's key, HERMES_AUDIT_KEY, and whatever a later setting adds.
const SECRET_NAME = /(?:TOKEN|SECRET|_KEY|PASSWORD|PASSWD)$/;

/**
 * Every secret value in the configuration, plus the `${VAR}` values HTTP tools put into headers
 * (`headerSecretValues`), from one place at start-up.
 */
export function collectSecretValues(options: {
  config: Config;
  /** Values resolved elsewhere at start-up (HTTP tool header secrets). */
  extra?: Iterable<string>;
}): SecretValues {
  const env = options.config.env as Record<string, unknown>;
  const found: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (typeof value === "string" && SECRET_NAME.test(name)) found.push(value);
  }
  for (const name of ["DATABASE_URL", "REDIS_URL"]) {
    const value = env[name];
    if (typeof value === "string") found.push(...urlPassword(value));
  }
  return createSecretValues([...found, ...(options.extra ?? [])]);
}

/** The password in `postgres://user:password@host/db`, raw and decoded. */
function urlPassword(url: string): string[] {
  try {
    const password = new URL(url).password;
    if (!password) return [];
    return [password, decodeURIComponent(password)];
  } catch {
    return [];
  }
}

/**
 * `collectSecretValues` plus the values HTTP tools put into headers and MCP servers into their
 * environments and headers: what the composition root calls once at start-up, before it builds the logger.
 */
export async function loadSecretValues(options: {
  config: Config;
  rawEnv: Readonly<Record<string, string | undefined>>;
}): Promise<SecretValues> {
  const { HERMES_HTTP_TOOLS: yamlPath, HERMES_MCP_SERVERS: mcpPath } = options.config.env;
  const extra = [
    ...(yamlPath ? await headerSecretValues({ yamlPath, env: options.rawEnv }) : []),
    ...(mcpPath ? await mcpSecretValues({ path: mcpPath, env: options.rawEnv }) : []),
  ];
  return collectSecretValues({ config: options.config, extra });
}

/**
 * The embedded default generates its audit key on first start (`$HERMES_DATA_DIR/audit.key`), after
 * the configuration was read: add it once storage is open. Nothing to do when the key is configured
 * (already collected) or absent.
 */
export function addGeneratedAuditKey(secrets: SecretValues, config: Config): void {
  if (config.env.HERMES_AUDIT_KEY || config.env.DATABASE_URL) return;
  try {
    secrets.add(readFileSync(join(config.env.HERMES_DATA_DIR, AUDIT_KEY_FILE), "utf8").trim());
  } catch {
    // No key file: nothing to redact.
  }
}
