import { existsSync, statSync } from "node:fs";
import { extname, isAbsolute, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { errorMessage, HermesError } from "../../core/errors.ts";
import type { Tool } from "../define-tool.ts";
import { checkTool, looksLikeTool } from "./check-tool.ts";
import { assertUniqueToolNames, type NamedSource, namedSources } from "./tool-names.ts";

const EXTENSIONS = new Set([".ts", ".mts", ".js", ".mjs"]);

export interface LoadToolModulesOptions {
  /** Relative paths in the spec are resolved against it (main passes `process.cwd()`). */
  cwd: string;
  /** Names already taken (built-ins): a module tool with one of them is a clash. */
  taken?: Iterable<NamedSource>;
}

/**
 * Loads `HERMES_TOOLS`: one path or comma-separated paths to `.ts`/`.js` modules. Every export that
 * is a tool is collected, and each tool in a default-exported array. A module that cannot be
 * imported, exports no tool or an invalid one, or a name used twice stops start-up with
 * `config_invalid` naming the file.
 */
export async function loadToolModules(spec: string, options: LoadToolModulesOptions): Promise<Tool[]> {
  const paths = spec
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
  if (paths.length === 0) throw configError(spec, "no module path given");

  const entries: NamedSource[] = [...(options.taken ?? [])];
  const tools: Tool[] = [];
  for (const path of paths) {
    const loaded = await loadOne(path, options.cwd);
    entries.push(...namedSources(loaded, path));
    tools.push(...loaded);
  }
  assertUniqueToolNames(entries);
  return tools;
}

async function loadOne(path: string, cwd: string): Promise<Tool[]> {
  const file = isAbsolute(path) ? path : resolve(cwd, path);
  if (!existsSync(file) || !statSync(file).isFile()) {
    throw configError(path, `file not found (looked at ${relative(cwd, file) || file})`);
  }
  if (!EXTENSIONS.has(extname(file))) {
    throw configError(path, `expected a .ts or .js module, got "${extname(file) || "no extension"}"`);
  }

  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (err) {
    throw configError(path, `could not be imported: ${firstLines(errorMessage(err))}`, err);
  }

  const found = new Set<Tool>();
  const seen = new Set<unknown>();
  for (const [exportName, value] of Object.entries(mod)) {
    const candidates = exportName === "default" && Array.isArray(value) ? value : [value];
    candidates.forEach((candidate, i) => {
      if (seen.has(candidate)) return; // the same tool exported twice (named and default)
      seen.add(candidate);
      const where = Array.isArray(value) ? `default export [${i}]` : `export "${exportName}"`;
      if (!looksLikeTool(candidate)) {
        if (Array.isArray(value)) throw configError(path, `${where} is not a tool`);
        return;
      }
      const check = checkTool(candidate);
      if (!check.ok) throw configError(path, `${where}: ${check.problem}`);
      found.add(check.tool);
    });
  }
  if (found.size === 0) {
    throw configError(path, "exports no tools (export defineTool(...) values, or a default array of them)");
  }
  const tools = [...found];
  assertUniqueToolNames(namedSources(tools, path));
  return tools;
}

function configError(path: string, problem: string, cause?: unknown): HermesError {
  return new HermesError("config_invalid", `HERMES_TOOLS module ${path}: ${problem}.`, { cause });
}

/** Import errors can carry a code frame; the first lines say what and where. */
function firstLines(text: string): string {
  const lines = text.trim().split("\n").slice(0, 4).join("\n");
  return lines.length > 600 ? `${lines.slice(0, 600)}…` : lines.replace(/\.$/, "");
}
