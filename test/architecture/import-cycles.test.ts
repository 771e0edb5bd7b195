import { globSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * No module in src/ imports itself back through a chain of others: a module's names come from below
 * it, and what two modules share (types, small constants) lives in the module that owns it or in a
 * small module of its own. Counted: every static `import` and `export … from` of a relative path,
 * `import type` included (the layering is about names, not only what Node loads). Not counted: a
 * dynamic `import()`, which loads a module lazily on purpose (boot/ loads Slack's parts only when it
 * needs them) and so may point anywhere.
 *
 * The statements are read with a regular expression, not a parser, so the test stays well under a
 * second on a busy machine: it takes the top-level statements as biome formats them (each one starts
 * a line).
 */

const ROOT = resolve(import.meta.dirname, "../..");

/** `import … from "x"`, `import "x"`, `export … from "x"`, at the start of a line; not `import("x")`. */
const STATIC_IMPORT = /^(?:import|export)\s(?:[^;"'`]*?\sfrom\s*)?["']([^"'\n]+)["']/gm;

/** The specifiers a module's source imports statically (type imports and re-exports included). */
function staticImports(source: string): string[] {
  return [...source.matchAll(STATIC_IMPORT)].map((match) => match[1] ?? "");
}

/** Each module's relative imports of other modules in the set, by path. */
function importGraph(files: readonly string[], read: (file: string) => string): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = staticImports(read(file))
      .filter((specifier) => specifier.startsWith("."))
      .map((specifier) => join(dirname(file), specifier));
    graph.set(
      file,
      [...new Set(targets)].filter((target) => known.has(target)),
    );
  }
  return graph;
}

/**
 * One cycle for each group of modules that reach each other (a strongly connected component, found
 * with Tarjan's algorithm), written as a path back to where it starts ("a.ts → b.ts → a.ts"), with
 * the group's other modules named after it.
 */
function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[] = [];

  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node) ?? 0);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const group = new Set<string>();
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      group.add(member);
    } while (member !== node);
    if (group.size > 1 || graph.get(node)?.includes(node)) cycles.push(pathBack(node, group, graph));
  };

  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return cycles.sort();
}

/** The shortest path from `start` back to itself inside `group` (breadth first). */
function pathBack(
  start: string,
  group: ReadonlySet<string>,
  graph: ReadonlyMap<string, readonly string[]>,
): string {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i] ?? start;
    for (const next of graph.get(node) ?? []) {
      if (!group.has(next)) continue;
      if (next === start) {
        const path = [start];
        for (let at: string | undefined = node; at !== start && at !== undefined; at = cameFrom.get(at)) {
          path.splice(1, 0, at);
        }
        const others = [...group].filter((member) => !path.includes(member)).sort();
        const cycle = [...path, start].join(" → ");
        return others.length === 0 ? cycle : `${cycle} (the same circle also holds ${others.join(", ")})`;
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, node);
        queue.push(next);
      }
    }
  }
  return start;
}

describe("import cycles", () => {
  it("src/ has none", () => {
    const files = globSync("src/**/*.ts", { cwd: ROOT }).sort();
    expect(files.length).toBeGreaterThan(100);
    const graph = importGraph(files, (file) => readFileSync(join(ROOT, file), "utf8"));
    // The reader must see the imports: most modules import another one of src/.
    const importing = [...graph.values()].filter((targets) => targets.length > 0).length;
    expect(importing).toBeGreaterThan(files.length / 2);
    expect(importCycles(graph)).toEqual([]);
  });

  it("reads static imports, type imports and re-exports, not dynamic imports or comments", () => {
    const source = [
      'import { a } from "./a.ts";',
      'import type { B } from "./b.ts";',
      "import {",
      "  type C,",
      "  c,",
      '} from "./c.ts";',
      'import "./d.ts";',
      'export { e } from "./e.ts";',
      'export type { F } from "./f.ts";',
      'export * as g from "./g.ts";',
      'export const later = () => import("./lazy.ts");',
      'const { h } = await import("./h.ts");',
      '// import { i } from "./i.ts";',
      'export const text = "from ./j.ts";',
    ].join("\n");
    expect(staticImports(source)).toEqual([
      "./a.ts",
      "./b.ts",
      "./c.ts",
      "./d.ts",
      "./e.ts",
      "./f.ts",
      "./g.ts",
    ]);
  });

  it("names each cycle as a path back to its start", () => {
    const sources: Record<string, string> = {
      "src/a.ts": 'import { b } from "./b.ts";',
      "src/b.ts": 'import type { C } from "./store/c.ts";',
      "src/store/c.ts": 'export { a } from "../a.ts";',
      "src/d.ts": 'import { b } from "./b.ts";\nconst lazy = () => import("./e.ts");',
      "src/e.ts": 'import { d } from "./d.ts";',
      "src/f.ts": 'import { f } from "./f.ts";',
      "src/g.ts": 'import { h } from "./h.ts";\nimport { i } from "./i.ts";',
      "src/h.ts": 'import { g } from "./g.ts";',
      "src/i.ts": 'import { h } from "./h.ts";',
    };
    const graph = importGraph(Object.keys(sources), (file) => sources[file] ?? "");
    expect(importCycles(graph)).toEqual([
      "src/a.ts → src/b.ts → src/store/c.ts → src/a.ts",
      "src/f.ts → src/f.ts",
      "src/g.ts → src/h.ts → src/g.ts (the same circle also holds src/i.ts)",
    ]);
  });
});
