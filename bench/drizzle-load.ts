/**
 * `node bench/drizzle-load.ts`: what loading drizzle-orm costs a fresh process, through its ESM
 * build (`import`) and through its CommonJS build (`require`, what src/store/drizzle.ts does): ms to
 * load the entry points Hermes uses, and RSS / V8 heap after a full GC. Each way runs in its own
 * process, three times. Prints numbers, asserts nothing.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const ENTRIES = ["drizzle-orm", "drizzle-orm/pg-core", "drizzle-orm/node-postgres", "drizzle-orm/migrator"];

const script = (how: "esm" | "cjs") => `
  import { createRequire } from "node:module";
  const load = createRequire(${JSON.stringify(`${ROOT}/package.json`)});
  const t = performance.now();
  for (const e of ${JSON.stringify(ENTRIES)}) ${how === "esm" ? "await import(e)" : "load(e)"};
  const ms = performance.now() - t;
  globalThis.gc(); globalThis.gc();
  setTimeout(() => {
    globalThis.gc();
    const m = process.memoryUsage();
    console.log(JSON.stringify({ ms, rss: m.rss / 1e6, heap: m.heapUsed / 1e6, heapTotal: m.heapTotal / 1e6 }));
  }, 300);
`;

const baseline = spawnSync(
  process.execPath,
  [
    "--expose-gc",
    "-e",
    "globalThis.gc(); setTimeout(() => console.log(process.memoryUsage().rss / 1e6), 300)",
  ],
  { encoding: "utf8" },
);
console.log(`a bare node process: ${Number(baseline.stdout).toFixed(0)} MB RSS`);
for (const how of ["esm", "cjs"] as const) {
  for (let i = 0; i < 3; i++) {
    const r = spawnSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", script(how)], {
      cwd: ROOT,
      encoding: "utf8",
    });
    if (r.status !== 0) throw new Error(r.stderr);
    const f = JSON.parse(r.stdout) as { ms: number; rss: number; heap: number; heapTotal: number };
    console.log(
      `drizzle ${how}: ${f.ms.toFixed(0)} ms to load, RSS ${f.rss.toFixed(0)} MB, heap ${f.heap.toFixed(0)} MB used of ${f.heapTotal.toFixed(0)} MB`,
    );
  }
}
