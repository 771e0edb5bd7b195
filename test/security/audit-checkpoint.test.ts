import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startConfiguredAuditCheckpoints } from "../../src/boot/audit-checkpoints.ts";
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { DEMO } from "../../src/sandbox/seed-demo-workspace.ts";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import { type AuditLog, createAuditLog } from "../../src/store/audit.ts";
import { type AuditCheckpoint, signCheckpoint } from "../../src/store/audit-checkpoint.ts";
import { createAuditKey } from "../../src/store/audit-key.ts";
import { execSql, openTestStore, type TestStore } from "../helpers/pg.ts";
import { sandboxWebClient, startSlackEmulator } from "../helpers/slack.ts";

const REPO = join(import.meta.dirname, "../..");
const SECRET = "audit-checkpoint-test-key-0123456789";

describe("signed checkpoints of the audit head (postgres, the CLI as a real process)", () => {
  let store: TestStore;
  let audit: AuditLog;
  let emulator: SlackApiEmulator;
  let dataDir: string;
  let file: string;
  let checkpoints: Awaited<ReturnType<typeof startConfiguredAuditCheckpoints>>;

  const append = async (n: number) => {
    for (let i = 0; i < n; i++) {
      await audit.append({ action: "tool.executed", tool: "create_ticket", userId: "U0REQ", args: { i } });
    }
  };
  const cli = (args: string[]) =>
    auditCli(args, { DATABASE_URL: store.url ?? "", HERMES_AUDIT_KEY: SECRET, HERMES_DATA_DIR: dataDir });
  /** As a superuser can: switch the append-only triggers off, change the table, switch them on. */
  const asSuperuser = (statement: string) =>
    execSql(
      store.handle.db,
      `BEGIN;
       ALTER TABLE audit_log DISABLE TRIGGER USER;
       ${statement};
       ALTER TABLE audit_log ENABLE TRIGGER USER;
       COMMIT;`,
    );

  beforeAll(async () => {
    store = await openTestStore("postgres");
    audit = createAuditLog({ db: store.handle.db, key: createAuditKey(SECRET) });
    emulator = await startSlackEmulator();
    dataDir = await mkdtemp(join(tmpdir(), "hermes-checkpoint-"));
    file = join(dataDir, "audit-checkpoints.jsonl");
  });
  afterAll(async () => {
    await checkpoints?.stop();
    await emulator?.stop();
    await store?.cleanup();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("publishes at start and on demand: appended to the JSONL file and posted to the admin channel", async () => {
    await append(12);
    const config = loadConfig({
      HERMES_DATA_DIR: dataDir,
      HERMES_AUDIT_CHECKPOINT_CHANNEL: DEMO.ops,
      HERMES_AUDIT_CHECKPOINT_MINUTES: "60",
    });
    checkpoints = await startConfiguredAuditCheckpoints({
      storage: { audit },
      config,
      slack: { client: sandboxWebClient(emulator) },
      logger: silentLogger(),
    });
    await append(3);
    const second = await checkpoints.publish();
    expect(second).toMatchObject({ v: 1, id: 15, hash: (await audit.head())?.hash });

    const lines = (await readFile(file, "utf8")).trim().split("\n");
    expect(lines.map((l) => (JSON.parse(l) as AuditCheckpoint).id)).toEqual([12, 15]);
    const posted = emulator.workspace.history(DEMO.ops).filter((m) => m.text.includes("Audit checkpoint"));
    expect(posted.map((m) => m.text.match(/row (\d+)/)?.[1])).toEqual(["12", "15"]);
    // The post carries the checkpoint exactly as the file does, ready for `verify --checkpoint`.
    expect(posted[1]?.text).toContain(lines[1]);
  });

  it("an untouched log passes verify --checkpoint (the file, or one checkpoint as JSON)", async () => {
    const all = await cli(["verify", "--checkpoint", file]);
    expect(all).toMatchObject({ code: 0, stderr: "" });
    expect(all.stdout).toContain("audit chain ok: 15 rows");
    expect(all.stdout).toContain("2 checkpoints ok (last: row 15");
    const [one] = (await readFile(file, "utf8")).trim().split("\n");
    expect(await cli(["verify", "--checkpoint", one ?? ""])).toMatchObject({ code: 0 });
  }, 120_000);

  it("a forged checkpoint fails: wrong key, or a field changed after signing", async () => {
    const head = (await audit.head())!;
    const otherKey = signCheckpoint(
      createAuditKey("an-attackers-own-key-of-32-characters"),
      head,
      new Date(),
    );
    const wrongKey = await cli(["verify", "--checkpoint", JSON.stringify(otherKey)]);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toMatch(/checkpoint FAILED \(row 15, .*\): its signature does not verify/);

    const [line] = (await readFile(file, "utf8")).trim().split("\n");
    const altered = { ...(JSON.parse(line ?? "") as AuditCheckpoint), id: 11 };
    const edited = await cli(["verify", "--checkpoint", JSON.stringify(altered)]);
    expect(edited.code).toBe(1);
    expect(edited.stderr).toContain("its signature does not verify");
  }, 120_000);

  it("deleting the newest rows passes the chain check but fails verify --checkpoint, naming the row", async () => {
    await asSuperuser("DELETE FROM audit_log WHERE id > 12");
    // What is left still links up: the chain alone cannot tell.
    expect(await audit.verify()).toMatchObject({ ok: true, rows: 12 });
    expect(await cli(["verify"])).toMatchObject({ code: 0 });

    const truncated = await cli(["verify", "--checkpoint", file]);
    expect(truncated.code).toBe(1);
    expect(truncated.stderr).toContain("audit chain ok: 12 rows");
    expect(truncated.stderr).toMatch(
      /checkpoint FAILED \(row 15, signed .*line 2\): row 15 is missing: the log now ends at row 12, so rows were deleted/,
    );
  }, 120_000);

  it("deleting and rewriting the tail under the same ids fails too: the row's hash differs", async () => {
    await execSql(store.handle.db, "SELECT setval(pg_get_serial_sequence('audit_log', 'id'), 12)");
    await append(3);
    expect(await audit.verify()).toMatchObject({ ok: true, rows: 15 });
    const rewritten = await cli(["verify", "--checkpoint", file]);
    expect(rewritten.code).toBe(1);
    expect(rewritten.stderr).toMatch(/checkpoint FAILED \(row 15, .*\): row 15 differs from the checkpoint/);
  }, 120_000);
});

async function auditCli(args: string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ["src/cli/audit.ts", ...args], {
      cwd: REPO,
      env: { ...process.env, HERMES_LOG_LEVEL: "warn", ...env },
      timeout: 110_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}
