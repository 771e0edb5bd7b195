import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const WRAPPER = "src/store/drizzle.ts";

function tsFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const rel = join(dir, name);
    if (statSync(join(ROOT, rel)).isDirectory()) return name === "node_modules" ? [] : tsFiles(rel);
    return rel.endsWith(".ts") ? [rel] : [];
  });
}

/**
 * drizzle-orm through its CommonJS build only (src/store/drizzle.ts says why): an ESM import of a
 * drizzle value anywhere would load its ~450-file ESM build beside it and bring back the ~160 MB.
 */
describe("drizzle-orm is loaded once, through src/store/drizzle.ts", () => {
  it("no source, test or benchmark imports a drizzle value other than through the wrapper", () => {
    const offenders = ["src", "test", "bench"].flatMap(tsFiles).flatMap((file) => {
      if (file === WRAPPER) return [];
      const text = readFileSync(join(ROOT, file), "utf8");
      // Type-only imports are erased by Node and load nothing.
      const valueImports = [
        ...text.matchAll(/import\s+(?!type\b)[^;]*?from\s+"(drizzle-orm[^"]*)"/g),
        ...text.matchAll(/import\(\s*"(drizzle-orm[^"]*)"\s*\)/g),
      ];
      return valueImports.map((m) => `${file}: ${m[1]}`);
    });
    expect(offenders).toEqual([]);
  });

  it("a process that opens the store loads drizzle's .cjs files and none of its ESM files", () => {
    // A load hook in a fresh process lists every drizzle file the store's modules bring in.
    const hook = `
      import { registerHooks } from "node:module";
      const loaded = [];
      registerHooks({ load(url, context, next) { if (url.includes("/drizzle-orm/")) loaded.push(url); return next(url, context); } });
      process.on("exit", () => console.log(JSON.stringify(loaded)));
    `;
    const r = spawnSync(
      process.execPath,
      [
        "--import",
        `data:text/javascript,${encodeURIComponent(hook)}`,
        "-e",
        'await import("./src/storage.ts"); await import("./src/store/migrate.ts");',
        "--input-type=module",
      ],
      { cwd: ROOT, encoding: "utf8" },
    );
    expect(r.status, r.stderr).toBe(0);
    const loaded = JSON.parse(r.stdout.trim().split("\n").at(-1)!) as string[];
    expect(loaded.length).toBeGreaterThan(10);
    expect(loaded.filter((url) => !url.endsWith(".cjs"))).toEqual([]);
  });
});
