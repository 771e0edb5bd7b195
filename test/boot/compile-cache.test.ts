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
        const second = await npmStart(
          { NODE_COMPILE_CACHE: cache, NODE_DEBUG_NATIVE: "COMPILE_CACHE" },
          // Into a file: a pipe the test reads drops native writes while it is full (see startProcess).
          { stderrToFile: true },
        );
        try {
          // Node writes its debug messages to stderr, here a file: `/healthz` answering says nothing
          // about how much of it has been written. The flush that follows start-up
          // is the last of them; everything start-up loaded was written before it.
          await expect
            .poll(() => second.output().includes("module.flushCompileCache() finished."), {
              // Only bounds a hang: the message follows the ready line within milliseconds when idle.
              timeout: PROCESS_CEILING_MS,
              interval: 50,
            })
            .toBe(true);
          // Each message is a whole line in a file. The app's files (~200) came from the cache by the
          // hundred, and none was stripped again ("no transpile cache for …" is a miss).
          const lines = second.output().split("\n");
          const app = `[compile cache] retrieving transpile cache for StrippedTypeScript ${APP}/src/`;
          const hits = lines.filter((l) => l.startsWith(app) && l.endsWith(".ts...success"));
          expect(hits.length).toBeGreaterThan(100);
          const misses = lines.filter((l) =>
            l.includes(`no transpile cache for StrippedTypeScript ${APP}/src/`),
          );
          expect(misses).toEqual([]);
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
