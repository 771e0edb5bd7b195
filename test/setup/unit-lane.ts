import { existsSync, globSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve } from "node:path";

/**
 * The unit lane (`npm run test:unit`, vitest.config.ts in mode "unit"): the test files that start
 * nothing — no Postgres or PGlite, no Redis, no child process, no server, no browser — read from
 * what each file imports, so a new file joins the lane, or leaves it, by what it does.
 *
 * A module starts something when it value-imports a package that does (STARTERS: a database or queue
 * client, child processes, a browser; of node:http and its siblings only the server and socket
 * exports) or calls createServer or listen itself. A test file is pure when no module it reaches
 * through value imports (static, dynamic, re-exports; `import type` is erased) starts something.
 * Imports are followed through test helpers, src and bench alike: a helper that opens a database makes
 * every file that imports it impure, even for one function. The rule only ever errs towards `npm test`;
 * what it cannot see (a library that listens or spawns inside) the lane's guard refuses at run time
 * (test/setup/unit-lane-guard.ts).
 */

/** Packages that start something: every export ("all"), or only the named ones. */
export const STARTERS: Readonly<Record<string, "all" | readonly string[]>> = {
  "node:child_process": "all",
  "node:cluster": "all",
  "node:dgram": "all",
  "node:http": ["createServer", "Server"],
  "node:https": ["createServer", "Server"],
  "node:http2": ["createServer", "createSecureServer", "connect"],
  "node:net": ["createServer", "Server", "connect", "createConnection", "Socket"],
  "node:tls": ["createServer", "Server", "connect", "TLSSocket"],
  pg: "all",
  "@electric-sql/pglite": "all",
  ioredis: "all",
  bullmq: "all",
  "playwright-core": "all",
  ws: "all",
  "@slack/socket-mode": "all",
  "@slack/bolt": ["App", "HTTPReceiver", "ExpressReceiver", "SocketModeReceiver"],
  "@modelcontextprotocol/sdk/client/stdio.js": "all",
};

/** Calls that start a server whatever the import looked like (`const { createServer } = await import(…)`). */
const STARTING_CALL = /\b(createServer)\s*\(|\.(listen)\s*\(/;

export type Import = { specifier: string; names: "all" | string[] };

/**
 * The value imports of a TypeScript or JavaScript module's source: what Node loads when it runs, and
 * which of its exports the module takes (a default or namespace binding takes the members read
 * from it, `http.createServer`; a dynamic import or `export *` takes them all).
 */
export function importsIn(source: string): Import[] {
  const found: Import[] = [];
  const statement =
    /(?:^|[;\n}])\s*(import|export)\s+(?!type\s)([\w$*{},\s]*?)\s*(?:from\s*)?["']([^"'\n]+)["']/g;
  for (const [, keyword, clause = "", specifier = ""] of source.matchAll(statement)) {
    found.push({ specifier, names: namesIn(clause, keyword === "export" ? undefined : source) });
  }
  const call = /(?<!\btypeof\s+)\b(?:import|require)\s*\(\s*["']([^"'\n]+)["']\s*\)/g;
  for (const [, specifier = ""] of source.matchAll(call)) found.push({ specifier, names: "all" });
  return found;
}

/** The value names an import clause (with the importing source) or a re-export clause takes. */
function namesIn(clause: string, source: string | undefined): "all" | string[] {
  const braces = /\{([^}]*)\}/.exec(clause)?.[1] ?? "";
  const names = braces
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "" && !part.startsWith("type "))
    .map((part) => part.split(/\s+as\s+/)[0] ?? part);
  const outside = clause
    .replace(/\{[^}]*\}/, "")
    .replace(/,/g, " ")
    .trim();
  if (outside === "") return names;
  const binding = /^(?:\*\s+as\s+)?([\w$]+)$/.exec(outside)?.[1];
  if (binding === undefined || source === undefined) return "all";
  const members = new RegExp(`(?<![\\w$.])${binding.replace(/\$/g, "\\$")}\\.([\\w$]+)`, "g");
  for (const [, member = ""] of source.matchAll(members)) names.push(member);
  return names;
}

/** What a module's own source starts: the starter packages it takes values from, and starting calls. */
export function startsIn(source: string): string[] {
  const starts: string[] = [];
  for (const { specifier, names } of importsIn(source)) {
    const starter = starterOf(specifier);
    if (!starter) continue;
    const exports = STARTERS[starter];
    if (exports === "all" || names === "all" || names.some((name) => exports?.includes(name))) {
      starts.push(specifier);
    }
  }
  const call = STARTING_CALL.exec(source);
  if (call) starts.push(`calls ${call[1] ?? call[2]}`);
  return starts;
}

function starterOf(specifier: string): string | undefined {
  const name = builtinModules.includes(specifier) ? `node:${specifier}` : specifier;
  if (name in STARTERS) return name;
  // A package's subpaths start what the package does ("@electric-sql/pglite/vector"), unless listed alone.
  return Object.keys(STARTERS).find(
    (starter) => STARTERS[starter] === "all" && name.startsWith(`${starter}/`),
  );
}

type Module = { starts: string[]; imports: string[] };
const modules = new Map<string, Module>();

/** A module's own starts and the files it imports relatively, read once per process. */
function moduleAt(file: string): Module {
  let module = modules.get(file);
  if (!module) {
    const source = readFileSync(file, "utf8");
    const imports = importsIn(source)
      .filter(({ specifier }) => specifier.startsWith("."))
      .map(({ specifier }) => resolve(dirname(file), specifier))
      .filter((target) => /\.(?:ts|mts|js|mjs)$/.test(target) && existsSync(target));
    module = { starts: startsIn(source), imports };
    modules.set(file, module);
  }
  return module;
}

/**
 * Why a module is not pure: one path per start it reaches ("test/helpers/pg.ts > pg"), empty when it
 * starts nothing. Paths are relative to `root`.
 */
export function startsOf(file: string, root: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  const { starts, imports } = moduleAt(file);
  const reasons = [...starts];
  for (const target of imports) {
    const [first] = startsOf(target, root, seen);
    if (first !== undefined) reasons.push(`${relative(root, target)} > ${first}`);
  }
  return reasons;
}

/** Every test file `npm test` collects (test/**\/*.test.ts), split into those that start nothing and the rest. */
export function unitLane(root: string): { pure: string[]; impure: string[] } {
  const pure: string[] = [];
  const impure: string[] = [];
  for (const file of globSync("test/**/*.test.ts", { cwd: root }).sort()) {
    (startsOf(join(root, file), root).length === 0 ? pure : impure).push(file);
  }
  return { pure, impure };
}
