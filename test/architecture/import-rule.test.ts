import { globSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The import rule of `docs/architecture.md` ("The import rule"), checked on every static import and
 * `export … from` of a relative path in src/ (`import type` included: the rule is about names):
 *
 * 1. `core/` imports nothing of Hermes's outside `core/`; `http/` imports only `core/` and `http/`.
 * 2. No two rooms import each other. A room is a top-level folder of src/ (`cli/commands/` is a room
 *    of its own: what the entry points in `cli/` run, and what a running server runs for them), and
 *    each file at the top of src/ is a room of its own.
 * 3. `boot/` (the composition root) is imported only by the entry points: `main.ts`, `cli/`, `eval/`.
 *
 * A dynamic `import()` is not counted: boot/ loads Slack's parts lazily on purpose.
 */

const ROOT = resolve(import.meta.dirname, "../..");
const SRC = join(ROOT, "src");

const STATIC_IMPORT = /^(?:import|export)\s(?:[^;"'`]*?\sfrom\s*)?["']([^"'\n]+)["']/gm;

/** The room a module of src/ belongs to, by its path relative to src/. */
function roomOf(path: string): string {
  const parts = path.split("/");
  if (parts.length === 1) return parts[0] ?? path;
  if (parts[0] === "cli" && parts[1] === "commands" && parts.length > 2) return "cli/commands";
  return parts[0] ?? path;
}

interface Edge {
  from: string;
  to: string;
}

function importEdges(): Edge[] {
  const edges: Edge[] = [];
  for (const file of globSync("**/*.{ts,mjs}", { cwd: SRC })) {
    for (const match of readFileSync(join(SRC, file), "utf8").matchAll(STATIC_IMPORT)) {
      const specifier = match[1] ?? "";
      if (!specifier.startsWith(".")) continue;
      const target = relative(SRC, join(SRC, dirname(file), specifier));
      if (target.startsWith("..")) continue;
      edges.push({ from: file, to: target });
    }
  }
  return edges;
}

const describeEdge = (e: Edge) => `${e.from} → ${e.to}`;

describe("the import rule", () => {
  const edges = importEdges();

  it("reads a real import graph", () => {
    expect(edges.length).toBeGreaterThan(500);
    expect(new Set(edges.map((e) => roomOf(e.to)))).toContain("core");
  });

  it("core/ imports only core/, and http/ only core/ and http/", () => {
    const wrong = edges.filter((e) => {
      const from = roomOf(e.from);
      const to = roomOf(e.to);
      if (from === "core") return to !== "core";
      if (from === "http") return to !== "core" && to !== "http";
      return false;
    });
    expect(wrong.map(describeEdge)).toEqual([]);
  });

  it("no two rooms import each other", () => {
    const byPair = new Map<string, Edge[]>();
    for (const e of edges) {
      const from = roomOf(e.from);
      const to = roomOf(e.to);
      if (from === to) continue;
      const key = `${from} → ${to}`;
      byPair.set(key, [...(byPair.get(key) ?? []), e]);
    }
    const both: string[] = [];
    for (const [key, list] of byPair) {
      const [from, to] = key.split(" → ");
      const back = byPair.get(`${to} → ${from}`);
      if (back && (from ?? "") < (to ?? "")) {
        both.push(`${key}: ${describeEdge(list[0] as Edge)}; back: ${describeEdge(back[0] as Edge)}`);
      }
    }
    expect(both).toEqual([]);
  });

  it("only the entry points (main.ts, cli/, eval/) import boot/", () => {
    const entry = new Set(["main.ts", "cli", "eval", "boot"]);
    const wrong = edges.filter((e) => roomOf(e.to) === "boot" && !entry.has(roomOf(e.from)));
    expect(wrong.map(describeEdge)).toEqual([]);
  });

  it("a room is named by its folder (the rule's own reading of paths)", () => {
    expect(roomOf("agent/run/loop.ts")).toBe("agent");
    expect(roomOf("cli/commands/runs-command.ts")).toBe("cli/commands");
    expect(roomOf("cli/runs.ts")).toBe("cli");
    expect(roomOf("config.ts")).toBe("config.ts");
  });
});
