import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { errorMessage, HermesError } from "../../core/errors.ts";
import { assertUniqueToolNames, type NamedSource } from "../custom/tool-names.ts";
import { defineTool, type Tool } from "../define-tool.ts";
import { resolveHeaders } from "./header-secrets.ts";
import { callHttp } from "./http-call.ts";
import { type HttpToolEntry, httpToolsError, parseHttpToolsYaml, toolLabel } from "./http-tool-config.ts";
import { inputSchemaFromJson } from "./input-schema.ts";
import { fillUrlTemplate, parseUrlTemplate } from "./url-template.ts";

export interface LoadHttpToolsOptions {
  /** Where `${NAME}` in headers is looked up; main passes the process environment. */
  env: Readonly<Record<string, string | undefined>>;
  /** A relative `yamlPath` is resolved against it (default: the process's working directory). */
  cwd?: string;
  /** Names already taken (built-ins, HERMES_TOOLS modules): using one again is a clash. */
  taken?: Iterable<NamedSource>;
}

const SENDS_BODY = new Set(["POST", "PUT", "PATCH"]);

/**
 * Loads `HERMES_HTTP_TOOLS`: a YAML list of HTTP tools for internal REST APIs. Everything is checked
 * here, at start-up (fields, URL placeholders against the input schema, `${ENV}` secrets), and every
 * problem is reported in one `config_invalid` error naming the tool and the field.
 */
export async function loadHttpTools(yamlPath: string, options: LoadHttpToolsOptions): Promise<Tool[]> {
  let text: string;
  try {
    text = await readFile(resolve(options.cwd ?? process.cwd(), yamlPath), "utf8");
  } catch (err) {
    throw new HermesError(
      "config_invalid",
      `HERMES_HTTP_TOOLS ${yamlPath} cannot be read: ${errorMessage(err)}`,
    );
  }
  const { entries, problems } = parseHttpToolsYaml(text, yamlPath);

  const tools: Tool[] = [];
  for (const { index, entry } of entries) {
    const label = toolLabel(index, entry);
    const built = buildHttpTool(entry, options.env);
    if (built.ok) tools.push(built.tool);
    else problems.push(...built.problems.map((p) => `${label}: ${p}`));
  }
  if (problems.length > 0) throw httpToolsError(yamlPath, problems);

  assertUniqueToolNames([
    ...(options.taken ?? []),
    ...entries.map(({ index, entry }) => ({
      name: entry.name,
      source: `${yamlPath} (${toolLabel(index, entry)})`,
    })),
  ]);
  return tools;
}

type Built = { ok: true; tool: Tool } | { ok: false; problems: string[] };

function buildHttpTool(entry: HttpToolEntry, env: LoadHttpToolsOptions["env"]): Built {
  const problems: string[] = [];
  const url = parseUrlTemplate(entry.url);
  if (!url.ok) problems.push(`url: ${url.problem}`);
  const input = inputSchemaFromJson(entry.input);
  if (!input.ok) problems.push(`input: ${input.problem}`);

  const bodyMode = entry.body ?? (SENDS_BODY.has(entry.method) ? "json" : "none");
  if (bodyMode === "json" && entry.method === "GET") problems.push("body: a GET request cannot have a body");

  if (url.ok && input.ok) {
    for (const name of new Set(url.value.names)) {
      if (!input.properties.includes(name)) {
        problems.push(`url: {${name}} is not a property of input`);
      }
    }
    for (const name of new Set(url.value.pathNames)) {
      if (input.properties.includes(name) && !input.required.includes(name)) {
        problems.push(`url: {${name}} is in the path, so input must list it under required`);
      }
    }
    if (bodyMode === "none") {
      for (const name of input.properties.filter((p) => !url.value.names.includes(p))) {
        problems.push(
          `input: property "${name}" is not used: put {${name}} in the url${entry.method === "GET" ? "" : " or set body: json"}`,
        );
      }
    }
  }

  const resolved = resolveHeaders(entry.headers, env);
  for (const variable of resolved.missing) {
    problems.push(`headers: \${${variable}} is not set in the environment`);
  }
  for (const header of resolved.invalid) problems.push(`headers: ${header} contains a line break`);
  const shown = `${entry.description}\n${JSON.stringify(entry.input)}`;
  if (resolved.secrets.some((s) => s.length >= 4 && shown.includes(s))) {
    problems.push("description or input contains the value of a header secret; the model would see it");
  }

  if (problems.length > 0 || !url.ok || !input.ok) return { ok: false, problems };
  const template = url.value;
  const { headers, secrets } = resolved;

  const tool = defineTool({
    name: entry.name,
    description: entry.description,
    input: input.schema,
    approval: entry.approval ?? (entry.method === "GET" ? "never" : "always"),
    // Only what the YAML sets: an `undefined` would override defineTool's default.
    ...definedOnly({
      level: entry.level,
      approvers: entry.approvers,
      dangerous: entry.dangerous,
      timeoutMs: entry.timeoutMs,
      maxResultChars: entry.maxResultChars,
    }),
    execute: (args, ctx) => {
      const values = args as Record<string, unknown>;
      const body =
        bodyMode === "json"
          ? Object.fromEntries(Object.entries(values).filter(([k]) => !template.names.includes(k)))
          : undefined;
      return callHttp({
        method: entry.method,
        url: fillUrlTemplate(template, values),
        headers,
        body,
        signal: ctx.signal,
        secrets,
      });
    },
  });
  return { ok: true, tool: tool as Tool };
}

function definedOnly<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
