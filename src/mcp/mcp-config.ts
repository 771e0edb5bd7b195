import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { z } from "zod";
import { errorMessage, HermesError } from "../core/errors.ts";
import { LEVELS } from "../core/permission-levels.ts";
import { parseYaml } from "../core/yaml.ts";
import { type ResolvedHeaders, resolveHeaders } from "../tools/http/header-secrets.ts";

/**
 * `HERMES_MCP_SERVERS`: a YAML or JSON list of MCP servers whose tools join the registry. Unknown
 * keys are errors (a typo must not pass), and every problem is reported in one `config_invalid`
 * error naming the server and the field.
 */

/** No `_`: the first `_` after `mcp_` in a tool name then always ends the server name (see tool-name.ts). */
const SERVER_NAME = /^[a-z][a-z0-9]{0,19}$/;

const approval = z.enum(["never", "always", "by_annotations"]);
const approvers = z.enum(["requester_or_admin", "admin", "not_requester"]);
const timeoutMs = z.number().int().min(100).max(600_000);

/** Per-tool settings, keyed by the tool's own name on the server. They override the server's. */
const toolOverrideSchema = z.strictObject({
  level: z.enum(LEVELS).optional(),
  approval: approval.optional(),
  approvers: approvers.optional(),
  dangerous: z.boolean().optional(),
  timeoutMs: timeoutMs.optional(),
  maxResultChars: z.number().int().min(200).max(1_000_000).optional(),
});
export type McpToolOverride = z.output<typeof toolOverrideSchema>;

const common = {
  name: z.string().regex(SERVER_NAME, "must be 1-20 lowercase letters and digits, starting with a letter"),
  /** Globs (`*`, `?`) over the server's tool names: only matching tools are offered. */
  include: z.array(z.string().min(1)).default(["*"]),
  exclude: z.array(z.string().min(1)).default([]),
  level: z.enum(LEVELS).default("user"),
  /** `by_annotations`: only a trusted server's `readOnlyHint: true` skips approval. */
  approval: approval.default("by_annotations"),
  approvers: approvers.optional(),
  /** Whether the server's tool annotations may relax approval. Default false. */
  trusted: z.boolean().default(false),
  timeouts: z
    .strictObject({
      /** Connecting and listing tools. */
      connectMs: timeoutMs.default(15_000),
      /** Each tool call (a per-tool `timeoutMs` overrides it). */
      callMs: timeoutMs.default(30_000),
    })
    .default({ connectMs: 15_000, callMs: 30_000 }),
  tools: z.record(z.string().min(1), toolOverrideSchema).default({}),
};

const stdioServerSchema = z.strictObject({
  ...common,
  transport: z.literal("stdio"),
  command: z.string().trim().min(1),
  args: z.array(z.string()).default([]),
  /** Added to a minimal inherited environment (PATH, HOME…); values may hold `${VAR}` secrets. */
  env: z
    .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "is not a valid variable name"), z.string())
    .default({}),
  cwd: z.string().min(1).optional(),
});

const httpServerSchema = z.strictObject({
  ...common,
  transport: z.literal("http"),
  /** The Streamable HTTP endpoint. */
  url: z.url({ protocol: /^https?$/, message: "must be an http(s) URL" }),
  headers: z
    .record(z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, "is not a valid header name"), z.string())
    .default({}),
});

export const mcpServerSchema = z.discriminatedUnion("transport", [stdioServerSchema, httpServerSchema], {
  error: 'must be "stdio" or "http"',
});
export type McpServerEntry = z.output<typeof mcpServerSchema>;

/** A server entry with its `${VAR}` references resolved. `secrets` are the substituted values. */
export type McpServerConfig = McpServerEntry & { secrets: string[] };

/** Parses the file's text (YAML, of which JSON is a subset) into resolved server configs; throws one error. */
export function parseMcpServers(
  text: string,
  file: string,
  env: Readonly<Record<string, string | undefined>>,
): McpServerConfig[] {
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (err) {
    throw mcpConfigError(file, [`not valid YAML or JSON: ${errorMessage(err)}`]);
  }
  if (!Array.isArray(data)) throw mcpConfigError(file, ["must be a list of servers (- name: …)"]);
  if (data.length === 0) throw mcpConfigError(file, ["the list of servers is empty"]);

  const problems: string[] = [];
  const servers: McpServerConfig[] = [];
  const seen = new Map<string, number>();
  data.forEach((raw, index) => {
    const label = serverLabel(index, raw);
    const name = (raw as { name?: unknown } | null)?.name;
    if (typeof name === "string") {
      const earlier = seen.get(name);
      if (earlier === undefined) seen.set(name, index);
      else problems.push(`${label}: name: already used by server #${earlier + 1}`);
    }
    // Secrets are checked on the raw entry too, so a missing variable is reported with the other problems.
    const resolved = {
      env: resolveTemplated(raw, "env", env),
      headers: resolveTemplated(raw, "headers", env),
    };
    for (const [field, r] of Object.entries(resolved)) {
      for (const variable of r.missing) {
        problems.push(`${label}: ${field}: \${${variable}} is not set in the environment`);
      }
      for (const key of r.invalid) problems.push(`${label}: ${field}.${key}: contains a line break`);
    }
    const parsed = mcpServerSchema.safeParse(raw);
    if (!parsed.success) {
      problems.push(...issueLines(label, parsed.error));
      return;
    }
    const entry = parsed.data;
    const secrets = [...resolved.env.secrets, ...resolved.headers.secrets];
    servers.push(
      entry.transport === "stdio"
        ? { ...entry, env: resolved.env.headers, secrets }
        : { ...entry, headers: resolved.headers.headers, secrets },
    );
  });
  if (problems.length > 0) throw mcpConfigError(file, problems);
  return servers;
}

/** Reads and parses `HERMES_MCP_SERVERS`; a missing or bad file is one `config_invalid` error. */
export async function loadMcpConfig(
  path: string,
  options: { env: Readonly<Record<string, string | undefined>>; cwd?: string },
): Promise<McpServerConfig[]> {
  let text: string;
  try {
    text = await readFile(resolve(options.cwd ?? process.cwd(), path), "utf8");
  } catch (err) {
    throw new HermesError(
      "config_invalid",
      `HERMES_MCP_SERVERS ${path} cannot be read: ${errorMessage(err)}`,
    );
  }
  return parseMcpServers(text, path, options.env);
}

/**
 * The `${VAR}` values the file would put into server environments and headers, for the process's
 * `SecretValues`, so every redactor removes them. A file that cannot be read or parsed gives none:
 * loading the servers reports it.
 */
export async function mcpSecretValues(options: {
  path: string;
  env: Readonly<Record<string, string | undefined>>;
  cwd?: string;
}): Promise<string[]> {
  try {
    const servers = await loadMcpConfig(options.path, options);
    return [...new Set(servers.flatMap((s) => s.secrets))];
  } catch {
    return [];
  }
}

/** `${VAR}` in the entry's `env` or `headers` map, when it is one (string values only). */
function resolveTemplated(
  raw: unknown,
  field: "env" | "headers",
  env: Readonly<Record<string, string | undefined>>,
): ResolvedHeaders {
  const value = (raw as Record<string, unknown> | null)?.[field];
  const strings =
    typeof value === "object" && value !== null && !Array.isArray(value)
      ? Object.fromEntries(
          Object.entries(value).filter((e): e is [string, string] => typeof e[1] === "string"),
        )
      : {};
  return resolveHeaders(strings, env);
}

function issueLines(label: string, error: z.ZodError): string[] {
  const lines: string[] = [];
  for (const issue of error.issues) {
    const at = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) lines.push(`${label}: ${at ? `${at}.` : ""}${key}: unknown field`);
      continue;
    }
    const missing = issue.code === "invalid_type" && issue.input === undefined;
    lines.push(`${label}: ${at || "(entry)"}: ${missing ? "is required" : issue.message}`);
  }
  return lines;
}

/** `server #2 "github"` (1-based, as people count entries in a file). */
function serverLabel(index: number, raw: unknown): string {
  const name = (raw as { name?: unknown } | null)?.name;
  return `server #${index + 1}${typeof name === "string" ? ` "${name}"` : ""}`;
}

function mcpConfigError(file: string, problems: string[]): HermesError {
  return new HermesError(
    "config_invalid",
    `HERMES_MCP_SERVERS ${file} is invalid:\n${problems.map((p) => `  - ${p}`).join("\n")}`,
  );
}
