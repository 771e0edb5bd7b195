import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startConfiguredAuditCheckpoints } from "../../src/boot/audit-checkpoints.ts";
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { DEMO } from "../../src/sandbox/seed-demo-workspace.ts";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import { createAuditLog } from "../../src/store/audit.ts";
import { createAuditKey } from "../../src/store/audit-key.ts";
import { createEventDedupe } from "../../src/store/event-dedupe.ts";
import { openTestStore, type TestStore } from "../helpers/pg.ts";
import { sandboxWebClient, startSlackEmulator } from "../helpers/slack.ts";

const readLines = (file: string) =>
  readFile(file, "utf8").then(
    (t) => t.trim().split("\n").filter(Boolean),
    () => [] as string[],
  );

/**
 * Several worker processes on one database (with Redis, each runs the background work): the audit
 * checkpoint of a period is published by one of them, not by each.
 */
describe("audit checkpoints with several workers", () => {
  let store: TestStore;
  let emulator: SlackApiEmulator;
  const dirs: string[] = [];
  const running: Array<{ stop(): Promise<void> }> = [];

  beforeAll(async () => {
    store = await openTestStore("postgres");
    emulator = await startSlackEmulator();
  });
  afterAll(async () => {
    for (const r of running) await r.stop();
    await emulator?.stop();
    await store?.cleanup();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it("three workers starting in the same period publish one checkpoint among them", async () => {
    const audit = createAuditLog({
      db: store.handle.db,
      key: createAuditKey("checkpoint-once-key-0123456789abcdef"),
    });
    await audit.append({ action: "tool.executed", tool: "create_ticket", userId: "U0REQ", args: {} });
    const events = createEventDedupe(store.handle);
    const files: string[] = [];
    for (let i = 0; i < 3; i++) {
      const dir = await mkdtemp(join(tmpdir(), "hermes-checkpoint-once-"));
      dirs.push(dir);
      files.push(join(dir, "audit-checkpoints.jsonl"));
      const config = loadConfig({
        HERMES_DATA_DIR: dir,
        REDIS_URL: "redis://127.0.0.1:6379",
        HERMES_AUDIT_CHECKPOINT_CHANNEL: DEMO.ops,
        // A day: the three starts fall in one period (a test at midnight UTC could see two).
        HERMES_AUDIT_CHECKPOINT_MINUTES: "1440",
      });
      running.push(
        await startConfiguredAuditCheckpoints({
          storage: { audit, events },
          config,
          slack: { client: sandboxWebClient(emulator) },
          logger: silentLogger(),
        }),
      );
    }
    const written = await Promise.all(files.map(readLines));
    expect(written.map((l) => l.length).sort()).toEqual([0, 0, 1]);
    const posted = emulator.workspace.history(DEMO.ops).filter((m) => m.text.includes("Audit checkpoint"));
    expect(posted).toHaveLength(1);
  });
});
