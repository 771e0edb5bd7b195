import { execFile } from "node:child_process";
import { createHash, createHmac } from "node:crypto";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildStorage } from "../../src/boot/build-storage.ts";
import { loadConfig } from "../../src/config.ts";
import { argsSha256 } from "../../src/core/args-hash.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { createApprovalStore } from "../../src/policy/approval-store.ts";
import { redact } from "../../src/policy/redact.ts";
import { type AuditLog, createAuditLog } from "../../src/store/audit.ts";
import { type AuditKey, createAuditKey } from "../../src/store/audit-key.ts";
import { createAuditSink } from "../../src/store/audit-sink.ts";
import { createTestDatabase, execSql, openTestStore, type TestStore } from "../helpers/pg.ts";

const REPO = join(import.meta.dirname, "../..");
const SECRET = "audit-hmac-test-key-0123456789abcdef";
const TOOL = "lookup_customer";
const PHONE = "+8613800138123";
/** What an attacker who knows the tool and the shape of its arguments would try: 10,000 numbers. */
const CANDIDATES = Array.from({ length: 10_000 }, (_, i) => `+86138001${String(38000 + i).padStart(5, "0")}`);
const argsFor = (phone: string) => ({ phone, reason: "callback" });

const run = {
  runId: "run_hmac",
  sessionKey: "T01:C0OPS:1700000000.000100",
  userId: "U0REQ",
  teamId: "T01",
  channelId: "C0OPS",
  threadTs: "1700000000.000100",
};

type Row = { action: string; args: unknown; args_sha256: string; row: string };
const rowsOf = (store: TestStore) =>
  execSql<Row>(
    store.handle.db,
    "SELECT action, args, args_sha256, audit_log::text AS row FROM audit_log ORDER BY id",
  );

describe("args_sha256 on postgres is a keyed HMAC", () => {
  let store: TestStore;
  let key: AuditKey;
  let audit: AuditLog;
  beforeAll(async () => {
    store = await openTestStore("postgres");
    key = createAuditKey(SECRET);
    audit = createAuditLog({ db: store.handle.db, key });
  });
  afterAll(() => store?.cleanup());

  it("is the README's recipe: hmac-sha256: + HMAC(key, context + sha256_hex(tool + newline + canonical JSON))", () => {
    const callHash = createHash("sha256")
      .update(`${TOOL}\n{"phone":"${PHONE}","reason":"callback"}`)
      .digest("hex");
    expect(argsSha256(TOOL, { reason: "callback", phone: PHONE })).toBe(callHash);
    const mac = createHmac("sha256", SECRET).update(`hermes-audit-args-v1\n${callHash}`).digest("hex");
    expect(key.argsMac(callHash)).toBe(`hmac-sha256:${mac}`);
  });

  it("the sink and the approval path store HMAC(key, call hash), never the plain sha256", async () => {
    const args = argsFor(PHONE);
    const callHash = argsSha256(TOOL, args);
    const sink = createAuditSink({ audit, redact });
    await sink({ run, callId: "call_1", tool: TOOL, args, argsSha256: callHash, action: "tool.requested" });
    const approvals = createApprovalStore({ db: store.handle.db, audit, ttlSeconds: 900 });
    const approval = await approvals.create({
      tool: TOOL,
      args,
      requesterId: "U0REQ",
      sessionKey: run.sessionKey,
      runId: run.runId,
      toolCallId: "call_1",
      channelId: "C0OPS",
    });
    // The approval is bound by the same keyed value: the plain hash is stored nowhere.
    expect(approval.argsSha256).toBe(key.argsMac(callHash));
    const decided = await approvals.decide({
      approvalId: approval.id,
      deciderId: "U0ADMIN",
      deciderLevel: "admin",
      decision: "approved",
      expectedArgsSha256: callHash,
    });
    expect(decided.kind).toBe("decided");

    const rows = await rowsOf(store);
    expect(rows.map((r) => r.action)).toEqual(["tool.requested", "tool.approval_requested", "tool.approved"]);
    for (const r of rows) {
      expect(r.args_sha256).toBe(key.argsMac(callHash));
      expect(r.args_sha256).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
      expect(r.row).not.toContain(callHash);
      expect(r.row).not.toContain("13800138123");
      expect(JSON.stringify(r.args)).toContain("[phone]");
    }
    // Keyed rows still chain: verify walks them like any other.
    expect(await audit.verify()).toMatchObject({ ok: true, rows: 3 });
  });

  it("brute-forcing the phone number from the row fails without the key, and works only with it", async () => {
    const [stored] = await rowsOf(store);
    const target = stored?.args_sha256 ?? "";
    const started = performance.now();
    const plain = CANDIDATES.filter((p) => argsSha256(TOOL, argsFor(p)) === target);
    const elapsedMs = performance.now() - started;
    const wrongKey = createAuditKey("some-other-key-an-attacker-might-try!!");
    const guessedKey = CANDIDATES.filter((p) => wrongKey.argsMac(argsSha256(TOOL, argsFor(p))) === target);
    expect(plain).toEqual([]);
    expect(guessedKey).toEqual([]);
    // The attack itself is cheap (this is what an unkeyed hash gave away); the key is what stops it.
    expect(CANDIDATES).toContain(PHONE);
    expect(
      CANDIDATES.filter((p) => argsSha256(TOOL, argsFor(p)) === argsSha256(TOOL, argsFor(PHONE))),
    ).toEqual([PHONE]);
    // A verifier holding the key can still tell which arguments a row was written for.
    expect(CANDIDATES.filter((p) => key.argsMac(argsSha256(TOOL, argsFor(p))) === target)).toEqual([PHONE]);
    console.info(`[audit-hmac] ${CANDIDATES.length} plain-sha256 guesses took ${elapsedMs.toFixed(0)} ms`);
  });

  it("a short HERMES_AUDIT_KEY is a configuration error that does not echo the value", () => {
    expect(() => loadConfig({ HERMES_AUDIT_KEY: "too-short-secret" })).toThrow(
      /HERMES_AUDIT_KEY must be at least 32 characters .*\(got "\*\*\*"\)/,
    );
  });

  it("refuses to start against Postgres without HERMES_AUDIT_KEY, saying why", async () => {
    const db = await createTestDatabase();
    const dataDir = await mkdtemp(join(tmpdir(), "hermes-hmac-nokey-"));
    try {
      const config = loadConfig({ DATABASE_URL: db.url, HERMES_DATA_DIR: dataDir });
      await expect(buildStorage(config, silentLogger())).rejects.toThrow(
        /HERMES_AUDIT_KEY is required with DATABASE_URL.*outside the database/,
      );
    } finally {
      await db.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe("the embedded default generates its key once and reuses it", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "hermes-hmac-embedded-"));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  const appendCall = async (storage: Awaited<ReturnType<typeof buildStorage>>, callId: string) => {
    const args = argsFor(PHONE);
    const row = await storage.audit.append({
      action: "tool.requested",
      tool: TOOL,
      toolCallId: callId,
      args: redact(args),
      argsSha256: argsSha256(TOOL, args),
    });
    return row.argsSha256;
  };

  it("writes $HERMES_DATA_DIR/audit.key (0600) on first start, the same key after a restart", async () => {
    const config = loadConfig({ HERMES_DATA_DIR: dataDir });
    const first = await buildStorage(config, silentLogger());
    let firstMac: string | null;
    try {
      firstMac = await appendCall(first, "call_a");
    } finally {
      await first.close();
    }
    const keyFile = join(dataDir, "audit.key");
    const written = await readFile(keyFile, "utf8");
    expect(written.trim()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);

    const second = await buildStorage(config, silentLogger());
    try {
      expect(await appendCall(second, "call_b")).toBe(firstMac);
    } finally {
      await second.close();
    }
    expect(await readFile(keyFile, "utf8")).toBe(written);
    expect(firstMac).toBe(createAuditKey(written.trim()).argsMac(argsSha256(TOOL, argsFor(PHONE))));
  }, 120_000);

  it("`npm run audit -- check-args` tells, with that key, whether arguments match a row", async () => {
    const cli = (args: string[]) => auditCli(args, { HERMES_DATA_DIR: dataDir });
    const match = await cli(["check-args", "--row", "1", "--args", JSON.stringify(argsFor(PHONE))]);
    expect(match).toMatchObject({ code: 0 });
    expect(match.stdout).toContain("row 1: the arguments match");
    const other = await cli([
      "check-args",
      "--row",
      "1",
      "--args",
      JSON.stringify(argsFor("+8613800138124")),
    ]);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain("do NOT match");
  }, 120_000);
});

async function auditCli(args: string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ["src/cli/audit.ts", ...args], {
      cwd: REPO,
      env: { ...process.env, DATABASE_URL: "", HERMES_AUDIT_KEY: "", HERMES_LOG_LEVEL: "warn", ...env },
      timeout: 110_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}
