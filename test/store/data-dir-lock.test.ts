import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  acquireDataDirLock,
  DataDirBusyError,
  type LockHolder,
  OWNER_LOCK_FILE,
} from "../../src/store/data-dir-lock.ts";
import { isProcessAlive, ownIdentity, processStartTime } from "../../src/store/process-identity.ts";
import { PROCESS_TEST_TIMEOUT_MS, type StartedProcess, startProcess } from "../helpers/child-process.ts";

const dirs: string[] = [];
const children: StartedProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) await child.stop();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "hermes-lock-"));
  dirs.push(dir);
  return dir;
};
const lockOf = (dir: string) => JSON.parse(readFileSync(join(dir, OWNER_LOCK_FILE), "utf8")) as LockHolder;
const nonce = () => randomBytes(16).toString("hex");
const writeLock = (path: string, holder: Partial<LockHolder>) =>
  writeFileSync(
    path,
    JSON.stringify({ nonce: nonce(), role: "server", command: "npm start", since: "", ...holder }),
    { mode: 0o600 },
  );

/** A process that is gone: its pid names no live process (as after `kill -9`). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid!;
}

/** A live process that is not this one (`sleep`), stopped after the test. */
async function livePid(): Promise<number> {
  const child = startProcess("sleep", ["600"], { env: {} });
  children.push(child);
  return child.pid!;
}

describe("the data dir's lock", () => {
  it("one holder at a time: a second taker is refused with a sentence naming the first; release frees it", async () => {
    const dir = dataDir();
    const first = await acquireDataDirLock({ dataDir: dir, role: "server", command: "npm start" });
    try {
      expect(lockOf(dir)).toMatchObject({ pid: process.pid, role: "server" });
      expect((statSync(join(dir, OWNER_LOCK_FILE)).mode & 0o777).toString(8)).toBe("600");
      first.publish("http://127.0.0.1:3999");
      expect(lockOf(dir)).toMatchObject({ url: "http://127.0.0.1:3999", token: first.token });
      const second = await acquireDataDirLock({ dataDir: dir, role: "server", command: "npm start" }).catch(
        (e: unknown) => e,
      );
      expect(second).toBeInstanceOf(DataDirBusyError);
      expect((second as Error).message).toBe(
        `Another Hermes (pid ${process.pid}, http://127.0.0.1:3999) already owns the embedded data in ${dir}; stop it first or set HERMES_DATA_DIR to another folder.`,
      );
      // The token reaches the CLIs through the error, never in its message or serialized form.
      expect((second as DataDirBusyError).admin).toEqual({
        url: "http://127.0.0.1:3999",
        token: first.token,
      });
      expect(JSON.stringify(second)).not.toContain(first.token!);
    } finally {
      first.release();
    }
    expect(readdirSync(dir)).toEqual([]);
    const again = await acquireDataDirLock({ dataDir: dir, role: "cli", command: "npm run audit" });
    again.release();
  });

  it("a lock whose process is gone (kill -9) is stale: taken over", async () => {
    const dir = dataDir();
    const pid = await deadPid();
    writeLock(join(dir, OWNER_LOCK_FILE), { pid });
    const lock = await acquireDataDirLock({ dataDir: dir, role: "server", command: "npm start" });
    try {
      expect(lockOf(dir).pid).toBe(process.pid);
    } finally {
      lock.release();
    }
  });

  it("pid reuse: a lock naming a live pid whose start time differs is stale; with its start time it holds", async () => {
    const dir = dataDir();
    const pid = await livePid();
    const started = processStartTime(pid);
    expect(started).toMatch(/^\d+$/);
    const { boot } = ownIdentity();
    expect(isProcessAlive({ pid, started, boot })).toBe(true);
    expect(isProcessAlive({ pid, started: String(Number(started) + 1), boot })).toBe(false);
    expect(isProcessAlive({ pid, started, boot: "another-boot" })).toBe(false);

    writeLock(join(dir, OWNER_LOCK_FILE), { pid, started: String(Number(started) + 1), boot });
    const taken = await acquireDataDirLock({ dataDir: dir, role: "server", command: "npm start" });
    expect(lockOf(dir).pid).toBe(process.pid);
    taken.release();

    writeLock(join(dir, OWNER_LOCK_FILE), { pid, started, boot });
    const refused = await acquireDataDirLock({ dataDir: dir, role: "server", command: "npm start" }).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(DataDirBusyError);
    expect((refused as Error).message).toContain(`Another Hermes (pid ${pid}, still starting)`);
    expect(lockOf(dir).pid).toBe(pid);
  });

  it("a lock of this pid that this process does not hold is stale (a container's Hermes is pid 1 at every start)", async () => {
    const dir = dataDir();
    writeLock(join(dir, OWNER_LOCK_FILE), { ...ownIdentity() });
    const lock = await acquireDataDirLock({ dataDir: dir, role: "server", command: "npm start" });
    lock.release();
  });

  it("a claimant that died in the middle of a takeover leaves its claim: taken over too, nothing left behind", async () => {
    const dir = dataDir();
    const staleNonce = nonce();
    writeLock(join(dir, OWNER_LOCK_FILE), { pid: await deadPid(), nonce: staleNonce });
    writeLock(join(dir, `${OWNER_LOCK_FILE}.takeover-${staleNonce}`), { pid: await deadPid() });
    const lock = await acquireDataDirLock({ dataDir: dir, role: "server", command: "npm start" });
    expect(readdirSync(dir)).toEqual([OWNER_LOCK_FILE]);
    lock.release();
  });

  it("a CLI waits for another CLI to finish; a server refuses a server at once", async () => {
    const dir = dataDir();
    const cli = await acquireDataDirLock({ dataDir: dir, role: "cli", command: "npm run audit" });
    const waiting = acquireDataDirLock({
      dataDir: dir,
      role: "cli",
      command: "npm run runs",
      waitMs: 60_000,
    });
    setTimeout(() => cli.release(), 300);
    const next = await waiting;
    expect(lockOf(dir).command).toBe("npm run runs");
    const refused = await acquireDataDirLock({ dataDir: dir, role: "server", command: "npm start" }).catch(
      (e: unknown) => e,
    );
    expect((refused as Error).message).toBe(
      `\`npm run runs\` (pid ${process.pid}) is using the embedded data in ${dir}; wait until it has finished, or set HERMES_DATA_DIR to another folder.`,
    );
    next.release();
  });

  it("processes racing to take a stale lock: exactly one owns it, the others name it", {
    timeout: PROCESS_TEST_TIMEOUT_MS,
  }, async () => {
    for (let round = 0; round < 10; round++) {
      const dir = dataDir();
      writeLock(join(dir, OWNER_LOCK_FILE), { pid: await deadPid() });
      const go = join(dir, "go");
      const racers = Array.from({ length: 5 }, () =>
        startProcess(process.execPath, ["test/helpers/lock-racer.ts", dir, go], {
          env: { PATH: process.env.PATH },
        }),
      );
      children.push(...racers);
      for (const r of racers) await r.waitForOutput(/^ready$/m, "lock racer ready");
      writeFileSync(go, "");
      const results = await Promise.all(
        racers.map((r) => r.waitForOutput(/^(won|held (\d+))$/m, "lock racer result")),
      );
      const winners = racers.filter((_, i) => results[i]![1] === "won");
      expect(winners, results.map((m) => m[0]).join(", ")).toHaveLength(1);
      const winner = winners[0]!;
      expect(lockOf(dir).pid).toBe(winner.pid);
      for (const m of results) if (m[1] !== "won") expect(Number(m[2])).toBe(winner.pid);
      for (const r of racers) await r.stop();
      expect(readdirSync(dir).filter((f) => f !== "go")).toEqual([]);
    }
  });
});
