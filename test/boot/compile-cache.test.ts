import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { PROCESS_CEILING_MS, PROCESS_TEST_TIMEOUT_MS } from "../helpers/child-process.ts";
import { npmStart } from "../helpers/npm-start.ts";

const APP = pathToFileURL(join(import.meta.dirname, "../..")).href;

/** Every file Node's compile cache holds under `dir` (one folder per Node version). */
function cacheEntries(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name);
}

describe("npm start keeps Node's compile cache", () => {
  it(
    "writes it once running; the next start reads its TypeScript stripped from it, stripping nothing",
    async () => {
      const cache = mkdtempSync(join(tmpdir(), "hermes-compile-cache-"));
      try {
        const first = await npmStart({ NODE_COMPILE_CACHE: cache });
        try {
          // Written when start-up is done, not only at exit: a killed process leaves it too.
          expect(cacheEntries(cache).length).toBeGreaterThan(100);
        } finally {
          await first.stop();
        }
        const second = await npmStart({ NODE_COMPILE_CACHE: cache, NODE_DEBUG_NATIVE: "COMPILE_CACHE" });
        try {
          // Node writes its debug messages to stderr, read here from a pipe of its own: `/healthz`
          // answering says nothing about how much of it has arrived. The flush that follows start-up
          // is the last of them; everything start-up loaded was written before it.
          await expect
            .poll(() => second.output().includes("module.flushCompileCache() finished."), {
              // Only bounds a hang: the message follows the ready line within milliseconds when idle.
              timeout: PROCESS_CEILING_MS,
              interval: 50,
            })
            .toBe(true);
          const out = second.output();
          // Node's debug messages are not whole lines: under load another one can land between a
          // lookup ("retrieving … X...") and its result, so each result is matched on its own.
          for (const file of ["src/main.ts", "src/boot/start-hermes.ts", "src/agent/loop.ts"]) {
            expect(out).toContain(`retrieving transpile cache for StrippedTypeScript ${APP}/${file}...`);
          }
          expect(out).toMatch(/\.\.\.success/);
          // No TypeScript file of the app was stripped again (a miss is "no transpile cache for …").
          expect(out.match(/no transpile cache for StrippedTypeScript \S*\/src\/\S*/g) ?? []).toEqual([]);
        } finally {
          await second.stop();
        }
      } finally {
        rmSync(cache, { recursive: true, force: true });
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
