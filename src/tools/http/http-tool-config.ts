import { z } from "zod";
import { errorMessage, HermesError } from "../../core/errors.ts";
import { LEVELS } from "../../core/permission-levels.ts";
import { parseYaml } from "../../core/yaml.ts";

export const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** One entry of the `HERMES_HTTP_TOOLS` YAML file. Unknown keys are errors: a typo must not pass. */
export const httpToolEntrySchema = z.strictObject({
  name: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,63}$/, "must be snake_case: lowercase letters, digits and _, at most 64"),
  description: z.string().trim().min(1, "must say what the tool does (the model chooses tools by it)"),
  method: z.preprocess((v) => (typeof v === "string" ? v.toUpperCase() : v), z.enum(HTTP_METHODS)),
  url: z.string().trim().min(1),
  /** JSON Schema of the arguments; default: no arguments. */
  input: z.record(z.string(), z.unknown()).default({ type: "object", properties: {} }),
  headers: z
    .record(z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, "is not a valid header name"), z.string())
    .default({}),
  /** `json`: input fields not used in the URL go as a JSON body (default for POST/PUT/PATCH). */
  body: z.enum(["json", "none"]).optional(),
  level: z.enum(LEVELS).optional(),
  /** Default: `never` for GET, `always` for methods that change something. */
  approval: z.enum(["never", "always"]).optional(),
  approvers: z.enum(["requester_or_admin", "admin", "not_requester"]).optional(),
  dangerous: z.boolean().optional(),
  timeoutMs: z.number().int().min(100).max(300_000).optional(),
  maxResultChars: z.number().int().min(200).max(1_000_000).optional(),
});
export type HttpToolEntry = z.output<typeof httpToolEntrySchema>;

const fileSchema = z.array(z.unknown(), { message: "must be a YAML list of tools (- name: …)" });

export interface ParsedHttpTools {
  /** The entries that passed, with their position in the file. */
  entries: Array<{ index: number; entry: HttpToolEntry }>;
  /** One line per problem: `tool #2 "lookup_host": url: …`. */
  problems: string[];
}

/**
 * Parses and validates the YAML text. A file that is not YAML or not a list throws `config_invalid`;
 * problems in entries are returned, so the caller can check the rest and report everything at once.
 */
export function parseHttpToolsYaml(text: string, file: string): ParsedHttpTools {
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (err) {
    throw httpToolsError(file, [`not valid YAML: ${errorMessage(err)}`]);
  }
  const list = fileSchema.safeParse(data ?? []);
  if (!list.success) throw httpToolsError(file, [list.error.issues[0]?.message ?? "must be a list"]);
  if (list.data.length === 0) throw httpToolsError(file, ["the list of tools is empty"]);

  const result: ParsedHttpTools = { entries: [], problems: [] };
  const firstIndex = new Map<string, number>();
  list.data.forEach((raw, index) => {
    const name = (raw as { name?: unknown } | null)?.name;
    if (typeof name === "string") {
      const earlier = firstIndex.get(name);
      if (earlier === undefined) firstIndex.set(name, index);
      else result.problems.push(`${toolLabel(index, raw)}: name: already used by tool #${earlier + 1}`);
    }
    const parsed = httpToolEntrySchema.safeParse(raw);
    if (parsed.success) {
      result.entries.push({ index, entry: parsed.data });
      return;
    }
    for (const issue of parsed.error.issues) {
      const label = toolLabel(index, raw);
      if (issue.code === "unrecognized_keys") {
        const allowed = Object.keys(httpToolEntrySchema.shape).join(", ");
        for (const key of issue.keys)
          result.problems.push(`${label}: ${key}: unknown field (allowed: ${allowed})`);
        continue;
      }
      const field = issue.path.length ? issue.path.map(String).join(".") : "(entry)";
      const missing = issue.code === "invalid_type" && issue.input === undefined;
      result.problems.push(`${label}: ${field}: ${missing ? "is required" : issue.message}`);
    }
  });
  return result;
}

/** `tool #2 "lookup_host"` (1-based, as people count entries in a file). */
export function toolLabel(index: number, raw: unknown): string {
  const name =
    typeof raw === "object" && raw !== null && typeof (raw as { name?: unknown }).name === "string"
      ? ` "${(raw as { name: string }).name}"`
      : "";
  return `tool #${index + 1}${name}`;
}

export function httpToolsError(file: string, problems: string[]): HermesError {
  return new HermesError(
    "config_invalid",
    `HERMES_HTTP_TOOLS ${file} is invalid:\n${problems.map((p) => `  - ${p}`).join("\n")}`,
  );
}
