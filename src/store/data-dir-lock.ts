import { randomBytes } from "node:crypto";
import {
  constants,
  copyFileSync,
  linkSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { HermesError } from "../core/errors.ts";
import { isProcessAlive, ownIdentity, type ProcessIdentity } from "./process-identity.ts";

/** The embedded data's owner, named in `$HERMES_DATA_DIR/owner.lock` (mode 0600). */
export const OWNER_LOCK_FILE = "owner.lock";

/**
 * `server`: `npm start`, which serves the CLIs' commands on its admin endpoint once it listens
 * (`url`, `token`). `cli`: a command that opens the database itself for its lifetime.
 */
export type LockRole = "server" | "cli";

export interface LockHolder extends ProcessIdentity {
  /** Random, unique per lock: tells this lock from any other one the same pid ever held. */
  nonce: string;
  role: LockRole;
  /** What holds it, for the sentence another process shows: `npm start`, `npm run audit`. */
  command: string;
  since: string;
  /** A server's loopback address, once it listens. */
  url?: string;
  /** A server's admin token (random, 32 bytes); only in the file, which only its user may read. */
  token?: string;
}

/** A lock this process holds. */
export interface DataDirLock {
  readonly path: string;
  /** The admin token of a server's lock. */
  readonly token: string | undefined;
  /** Adds the server's loopback URL to the lock (replaced whole, atomically), for the CLIs. */
  publish(url: string): void;
  /** Removes the lock if it is still this one. Safe to call more than once. */
  release(): void;
}

/** How a running server is reached by the CLIs: never in a message, never logged. */
export interface AdminAccess {
  url: string;
  token: string;
}

/** Another live process owns the data dir: `message` is the one sentence to show. */
export class DataDirBusyError extends HermesError {
  readonly holder: Omit<LockHolder, "token">;
  declare readonly admin: AdminAccess | undefined;

  constructor(dataDir: string, holder: LockHolder) {
    super("storage_unavailable", busyMessage(dataDir, holder));
    this.name = "DataDirBusyError";
    const { token, ...rest } = holder;
    this.holder = rest;
    // Not enumerable: a logged or serialized error never carries the token.
    Object.defineProperty(this, "admin", {
      value: holder.role === "server" && holder.url && token ? { url: holder.url, token } : undefined,
      enumerable: false,
    });
  }
}

export function busyMessage(dataDir: string, h: Pick<LockHolder, "role" | "pid" | "url" | "command">) {
  return h.role === "server"
    ? `Another Hermes (pid ${h.pid}, ${h.url ?? "still starting"}) already owns the embedded data in ${dataDir}; stop it first or set HERMES_DATA_DIR to another folder.`
    : `\`${h.command}\` (pid ${h.pid}) is using the embedded data in ${dataDir}; wait until it has finished, or set HERMES_DATA_DIR to another folder.`;
}

/**
 * How long a command waits for the embedded data while another command has it, or while the server
 * that has it is still starting (its migrations on a first start take seconds).
 */
export const CLI_LOCK_WAIT_MS = 60_000;

export interface AcquireOptions {
  dataDir: string;
  role: LockRole;
  command: string;
  /**
   * How long to wait for a holder that is about to let go or to serve: a CLI, and (for a CLI) a
   * server that is still starting. Default 0: refuse at once.
   */
  waitMs?: number;
}

/** Nonces of the locks this process holds or is taking: the pid alone cannot tell them apart. */
const held = new Map<string, () => void>();
process.once("exit", () => {
  for (const release of [...held.values()]) release();
});

/**
 * Takes the data dir's lock, or throws `DataDirBusyError` naming the live process that has it.
 *
 * The lock file appears whole: it is written under a name of its own, then hard-linked to
 * `owner.lock`, which fails if that exists (atomic, like `open(…, O_EXCL)`, and never half-written).
 * A lock whose process is gone (pid, start time and boot: `process-identity.ts`) is stale. Replacing
 * it is arbitrated by the same link on `owner.lock.takeover-<its nonce>`: only the one process that
 * links it may remove that stale lock, after reading it again under the claim, and then every
 * contender links its own lock once more, where again exactly one wins. A claimant that died while
 * holding the claim leaves a stale claim, taken over the same way one level down.
 */
export async function acquireDataDirLock(o: AcquireOptions): Promise<DataDirLock> {
  mkdirSync(o.dataDir, { recursive: true });
  const path = join(o.dataDir, OWNER_LOCK_FILE);
  const mine: LockHolder = {
    ...ownIdentity(),
    nonce: randomBytes(16).toString("hex"),
    role: o.role,
    command: o.command,
    since: new Date().toISOString(),
    ...(o.role === "server" ? { token: randomBytes(32).toString("base64url") } : {}),
  };
  held.set(mine.nonce, () => undefined);
  const temp = join(o.dataDir, `.${OWNER_LOCK_FILE}.${mine.nonce}`);
  writeFileSync(temp, `${JSON.stringify(mine)}\n`, { mode: 0o600, flag: "wx" });
  const deadline = Date.now() + (o.waitMs ?? 0);
  try {
    for (;;) {
      const holder = await claim(path, temp, 0);
      if (holder === undefined) return heldLock(path, mine);
      const passing = holder.role === "cli" || (o.role === "cli" && !holder.url);
      if (!passing || Date.now() >= deadline) throw new DataDirBusyError(o.dataDir, holder);
      await sleep(100);
    }
  } catch (err) {
    held.delete(mine.nonce);
    throw err;
  } finally {
    rmSync(temp, { force: true });
  }
}

const MAX_CLAIM_DEPTH = 3;

/** Links `temp` at `path`: undefined once it is there, else the live process that holds `path`. */
async function claim(path: string, temp: string, depth: number): Promise<LockHolder | undefined> {
  for (let attempt = 0; ; attempt++) {
    try {
      linkOrCopy(temp, path);
      return undefined;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const found = readLock(path);
    if (found === undefined) continue;
    // A file without a lock in it is being written by a copy (no hard links there): give it a moment.
    if ("unreadable" in found && attempt < 10) {
      await sleep(20);
      continue;
    }
    if ("nonce" in found && isHolderAlive(found)) return found;
    if (depth >= MAX_CLAIM_DEPTH)
      throw new HermesError(
        "storage_unavailable",
        `Could not take over the stale lock ${path}: make sure no Hermes runs on this data, then remove it and the ${path}.takeover-* files.`,
      );
    const staleKey = "nonce" in found ? found.nonce : found.key;
    const marker = `${path}.takeover-${staleKey}`;
    const other = await claim(marker, temp, depth + 1);
    if (other) {
      // Another live process is replacing this stale lock right now: it takes microseconds.
      if (attempt > 100) return other;
      await sleep(20);
      continue;
    }
    try {
      const again = readLock(path);
      if (again !== undefined && ("nonce" in again ? again.nonce : again.key) === staleKey) unlinkQuiet(path);
    } finally {
      unlinkQuiet(marker);
    }
  }
}

function isHolderAlive(holder: LockHolder): boolean {
  if (holder.pid === process.pid) return held.has(holder.nonce);
  return isProcessAlive(holder);
}

type ReadLock = LockHolder | { unreadable: true; key: string } | undefined;

/** The lock at `path`: its holder, `undefined` when there is none, or unreadable (keyed by inode and time). */
function readLock(path: string): ReadLock {
  let text: string;
  let key: string;
  try {
    const st = statSync(path);
    key = `x${st.ino}-${Math.trunc(st.mtimeMs)}`;
    text = readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "EACCES" || code === "EPERM")
      throw new HermesError(
        "storage_unavailable",
        `This user may not read ${path}: the embedded data belongs to another user; run Hermes as that user.`,
      );
    throw err;
  }
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    if (
      typeof value.pid === "number" &&
      typeof value.nonce === "string" &&
      /^[0-9a-f]{8,64}$/.test(value.nonce) &&
      (value.role === "server" || value.role === "cli")
    )
      return { command: "a Hermes process", since: "", ...value } as LockHolder;
  } catch {
    // not JSON (yet)
  }
  return { unreadable: true, key };
}

function heldLock(path: string, mine: LockHolder): DataDirLock {
  let current = mine;
  let released = false;
  const ours = () => {
    const found = readLock(path);
    return found !== undefined && "nonce" in found && found.nonce === mine.nonce;
  };
  const release = () => {
    if (released) return;
    released = true;
    held.delete(mine.nonce);
    try {
      if (ours()) unlinkQuiet(path);
    } catch {
      // nothing to do: the next start finds a lock whose process is gone
    }
  };
  held.set(mine.nonce, release);
  return {
    path,
    token: mine.token,
    publish(url) {
      if (released || !ours()) throw new Error(`the lock ${path} is no longer this process's`);
      current = { ...current, url };
      const next = `${path}.${mine.nonce}.next`;
      writeFileSync(next, `${JSON.stringify(current)}\n`, { mode: 0o600 });
      renameSync(next, path);
    },
    release,
  };
}

/** Hard link where the file system has them; else an exclusive copy (appears at once, filled after). */
function linkOrCopy(from: string, to: string) {
  try {
    linkSync(from, to);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "ENOSYS" && code !== "EOPNOTSUPP") throw err;
    copyFileSync(from, to, constants.COPYFILE_EXCL);
  }
}

function unlinkQuiet(path: string) {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}
