import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parseHttpToolsYaml } from "./http-tool-config.ts";

/**
 * `${NAME}` in HTTP tool headers, resolved once at load from the environment `main` passes in.
 * The resolved values are secrets: they go into request headers and nowhere else, and
 * `scrubSecrets` removes them from anything that could reach the model, a log or the audit log.
 */

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Secrets shorter than this are not scrubbed from text: replacing every "1" would garble results. */
const MIN_SCRUB_LENGTH = 4;

export interface ResolvedHeaders {
  headers: Record<string, string>;
  /** The values substituted for `${…}`, to scrub from errors and results. */
  secrets: string[];
  /** Variables that are unset or empty. */
  missing: string[];
  /** Headers whose value would contain a line break after substitution. */
  invalid: string[];
}

export function resolveHeaders(
  headers: Record<string, string>,
  env: Readonly<Record<string, string | undefined>>,
): ResolvedHeaders {
  const out: Record<string, string> = {};
  const secrets = new Set<string>();
  const missing = new Set<string>();
  const invalid: string[] = [];
  for (const [name, template] of Object.entries(headers)) {
    const value = template.replace(REFERENCE, (_m, variable: string) => {
      const v = env[variable];
      if (v === undefined || v === "") {
        missing.add(variable);
        return "";
      }
      secrets.add(v);
      return v;
    });
    if (/[\r\n]/.test(value)) invalid.push(name);
    out[name] = value;
  }
  return { headers: out, secrets: [...secrets], missing: [...missing], invalid };
}

/** `text` with every secret value replaced by `[secret]` (longest first, so overlaps go whole). */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  const sorted = secrets.filter((s) => s.length >= MIN_SCRUB_LENGTH).sort((a, b) => b.length - a.length);
  for (const secret of sorted) out = out.split(secret).join("[secret]");
  return out;
}

/**
 * The values `HERMES_HTTP_TOOLS` headers would resolve to, for the process's `SecretValues` (so every
 * redactor removes them by value, not only the HTTP tool's own error and result scrubbing). Read
 * once at start-up; a file that cannot be read or parsed gives none here — loading the tools reports it.
 */
export async function headerSecretValues(options: {
  yamlPath: string;
  env: Readonly<Record<string, string | undefined>>;
  cwd?: string;
}): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(resolve(options.cwd ?? process.cwd(), options.yamlPath), "utf8");
  } catch {
    return [];
  }
  let entries: ReturnType<typeof parseHttpToolsYaml>["entries"];
  try {
    entries = parseHttpToolsYaml(text, options.yamlPath).entries;
  } catch {
    return [];
  }
  const values = new Set<string>();
  for (const { entry } of entries) {
    for (const value of resolveHeaders(entry.headers, options.env).secrets) values.add(value);
  }
  return [...values];
}
