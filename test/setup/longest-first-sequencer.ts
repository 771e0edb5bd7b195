import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Seconds the slowest files took on a quiet 2-core machine. Two forks share the files: whichever
 * starts last decides when the suite ends, so the longest must start first. Vitest orders by the
 * durations it cached from the last run, which a fresh clone (CI) does not have; there it would order
 * by file size and start a one-test file that spends a minute in `npm ci` last.
 */
const MEASURED_SECONDS: Readonly<Record<string, number>> = {
  "test/reliability/kill-restart.test.ts": 100,
  "test/e2e/fresh-clone.test.ts": 65,
  "test/reliability/faults-redis.test.ts": 40,
  "test/boot/compile-cache.test.ts": 25,
  "test/e2e/env-file.test.ts": 25,
  "test/cli/agent-tools.test.ts": 22,
  "test/e2e/shutdown.test.ts": 20,
  "test/reliability/embedded-durable-queue.test.ts": 20,
  "test/reliability/sandbox-workspace-restart.test.ts": 20,
  "test/slack/rate-limit/one-channel.test.ts": 25,
  "test/cli/agent-cli.test.ts": 18,
  "test/reliability/load.test.ts": 18,
  "test/deploy/runtime-image.test.ts": 15,
  "test/slack/rate-limit/burst.test.ts": 15,
  "test/reliability/faults-postgres.test.ts": 15,
};

/** A file not measured that starts a process of its own (npm, node, Chromium, Redis) is likely slow. */
const STARTS_A_PROCESS =
  /helpers\/(?:child-process|npm-start|hermes-process|hermes-worker-process|start-command|hermes-cluster|sandbox-in-browser|chromium|redis-cluster)\.ts/;
const PROCESS_GUESS_SECONDS = 8;

/** Vitest's order (projects, cached durations, then size), with the longest files first where it has no durations. */
export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const rank = new Map(base.map((spec, i) => [spec, i]));
    const seconds = new Map(base.map((spec) => [spec, this.expectedSeconds(spec)]));
    return [...base].sort((a, b) => {
      const group = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (group !== 0 || a.project.name !== b.project.name) return rank.get(a)! - rank.get(b)!;
      return seconds.get(b)! - seconds.get(a)! || rank.get(a)! - rank.get(b)!;
    });
  }

  private expectedSeconds(spec: TestSpecification): number {
    const cached = this.ctx.cache.getTestSpecificationResult(spec);
    if (cached) return cached.duration / 1000;
    const file = relative(this.ctx.config.root, spec.moduleId).replaceAll("\\", "/");
    const measured = MEASURED_SECONDS[file];
    if (measured !== undefined) return measured;
    try {
      return STARTS_A_PROCESS.test(readFileSync(spec.moduleId, "utf8")) ? PROCESS_GUESS_SECONDS : 0;
    } catch {
      return 0;
    }
  }
}
