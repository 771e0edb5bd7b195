import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("../..", import.meta.url));

/**
 * The node flags `npm start` passes in the build in `appDir` (`node <flags> src/main.ts`), read from
 * its package.json: tests and benchmarks start Hermes as `npm start` does (compile cache, young
 * generation cap) while keeping Hermes itself as the process they spawn.
 */
export function npmStartFlags(appDir: string = REPO): string[] {
  const pkg = JSON.parse(readFileSync(join(appDir, "package.json"), "utf8")) as {
    scripts?: { start?: string };
  };
  const words = (pkg.scripts?.start ?? "").split(/\s+/);
  return words.slice(1, Math.max(1, words.indexOf("src/main.ts")));
}

/**
 * `HERMES_ENV_FILE` for what tests start the way `npm start` does: an empty file instead of the
 * checkout's `.env` (`src/boot/env-file.mjs`), so a developer's own settings never reach a test.
 */
export const NO_ENV_FILE = { HERMES_ENV_FILE: "/dev/null" } as const;
