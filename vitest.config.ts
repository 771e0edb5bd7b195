import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig, type TestProjectConfiguration } from "vitest/config";
import LongestFirstSequencer from "./test/setup/longest-first-sequencer.ts";
import { unitLane } from "./test/setup/unit-lane.ts";

/**
 * Files that need a process of their own: one asserts what its own module graph has loaded (that the
 * tokenizer is not loaded before the first exact count), which a reused fork may already have; the
 * others bound the CPU an adversarial input may hold the event loop for, which a fork's heap grown by
 * earlier files would charge with their garbage collections.
 */
const OWN_PROCESS = [
  "test/agent/tokenizer-lazy.test.ts",
  "test/security/malformed-arguments.test.ts",
  "test/security/tool-args-fuzz.property.test.ts",
  "test/e2e/streaming-long-answer.test.ts",
  "test/mcp/huge-result.test.ts",
];

/**
 * `npm test` runs every file in the two projects below. `npm run test:unit` (mode "unit") runs the same
 * projects over only the files that start nothing: no database, Redis, child process, server or
 * browser, read from their imports (test/setup/unit-lane.ts), with a guard that refuses them at run
 * time (test/setup/unit-lane-guard.ts).
 */
function projects(impure: readonly string[] | undefined): TestProjectConfiguration[] {
  const unit = impure !== undefined;
  const ownProcess = OWN_PROCESS.filter((file) => !impure?.includes(file));
  const lane = unit ? { setupFiles: ["test/setup/unit-lane-setup.ts"] } : {};
  return [
    // Every file cleans up what it starts (servers, processes, timers, spies), so a fork runs one file
    // after another without a new process and module graph each time: ~100 s less of a ~9-minute suite.
    {
      extends: true,
      test: {
        name: unit ? "unit" : "reused-forks",
        sequence: { groupOrder: 0 },
        include: ["test/**/*.test.ts"],
        exclude: [...configDefaults.exclude, ...OWN_PROCESS, ...(impure ?? [])],
        isolate: false,
        ...lane,
      },
    },
    // …and run last, one at a time, with no other file beside them: two of them bound the CPU time a
    // hostile input costs the event loop, and on two vCPUs a busy sibling makes the same work cost
    // more CPU time (in CI a measure that read 77-82 ms alone read 100-113 ms beside other files).
    ...(ownProcess.length === 0
      ? []
      : [
          {
            extends: true,
            test: {
              name: unit ? "unit-own-process" : "own-process",
              isolate: true,
              include: ownProcess,
              sequence: { groupOrder: 1 },
              fileParallelism: false,
              ...lane,
            },
          },
        ]),
  ];
}

export default defineConfig(({ mode }) => {
  const impure = mode === "unit" ? unitLane(fileURLToPath(new URL(".", import.meta.url))).impure : undefined;
  return {
    test: {
      // One migrated PGlite directory per run, copied for each PGlite test store (~1 s instead of ~3 s).
      globalSetup: impure ? [] : ["test/setup/pglite-template.ts"],
      // Ceilings that only bound a hang; they hold on a busy 2-core machine (CI shares one). A test that
      // starts a process sets its own, larger timeout (test/helpers/child-process.ts) above the helper's
      // ceiling, so the helper fails first and kills its child instead of vitest abandoning it.
      testTimeout: 60_000,
      // beforeAll hooks create databases, run migrations and start servers: slow when the machine is busy.
      hookTimeout: 180_000,
      teardownTimeout: 60_000,
      // Two cores: files run in parallel forks, each with its own database / Redis prefix.
      pool: "forks",
      maxWorkers: 2,
      // The longest files start first, also in a fresh clone with no durations cached.
      sequence: { sequencer: LongestFirstSequencer },
      projects: projects(impure),
    },
  };
});
