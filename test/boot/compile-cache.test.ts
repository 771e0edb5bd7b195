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
          // Node's debug messages are not whole lines: written from more than one thread, one can land
          // inside another (even inside a file name). So no single file is looked for: the app's files
          // (~200) came from the cache by the hundred, and none was stripped again ("no transpile
          // cache for …" is a miss; a broken cache misses every file, so some of those stay whole).
          const app = `StrippedTypeScript ${APP}/src/`;
          const hits = out.split(`retrieving transpile cache for ${app}`).slice(1);
          expect(hits.filter((h) => /^[\w/.-]+\.ts\.\.\.success/.test(h)).length).toBeGreaterThan(100);
          expect(out.split(`no transpile cache for ${app}`).length - 1).toBe(0);
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
