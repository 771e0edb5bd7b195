import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type { WorkspaceChange, WorkspaceState } from "./workspace-state.ts";
import { WorkspaceStateBuilder } from "./workspace-state-builder.ts";
import { FILE_ID, parseWorkspaceChange, parseWorkspaceState } from "./workspace-state-schema.ts";

const SNAPSHOT = "workspace.json";
const FILES = "files";
const FORMAT = "hermes-sandbox-workspace";
const journalName = (generation: number) => `journal-${generation}.jsonl`;

/** What a workspace folder holds. */
export type KeptWorkspace =
  | { kind: "missing" }
  | { kind: "unreadable"; reason: string }
  | { kind: "kept"; state: WorkspaceState; generation: number; changes: number; tornTail: boolean };

/**
 * A sandbox workspace on disk: `workspace.json` (the state at the last compaction, with its
 * generation), `journal-<generation>.jsonl` (every change since, one JSON line each, written
 * synchronously before the emulator answers) and `files/<id>` (uploaded bytes). A compaction writes a
 * new snapshot (tmp file, fsync, rename) with the next generation and starts that generation's
 * journal, so a crash at any point leaves one consistent pair.
 */
export function readKeptWorkspace(dir: string): KeptWorkspace {
  const snapshotPath = join(dir, SNAPSHOT);
  if (!existsSync(snapshotPath)) {
    const leftovers = existsSync(dir) ? readdirSync(dir).filter((n) => n.startsWith("journal-")) : [];
    return leftovers.length > 0
      ? { kind: "unreadable", reason: `${SNAPSHOT} is missing` }
      : { kind: "missing" };
  }
  let snapshot: unknown;
  try {
    snapshot = JSON.parse(readFileSync(snapshotPath, "utf8"));
  } catch {
    return { kind: "unreadable", reason: `${SNAPSHOT} is not valid JSON` };
  }
  const { format, generation, state } = (snapshot ?? {}) as Record<string, unknown>;
  const parsed = parseWorkspaceState(state);
  if (format !== FORMAT || !Number.isSafeInteger(generation) || !parsed)
    return { kind: "unreadable", reason: `${SNAPSHOT} is not a sandbox workspace this version reads` };
  const builder = new WorkspaceStateBuilder(parsed);
  const journalPath = join(dir, journalName(generation as number));
  const text = existsSync(journalPath) ? readFileSync(journalPath, "utf8") : "";
  const lines = text.split("\n");
  let changes = 0;
  let tornTail = false;
  for (const [i, line] of lines.entries()) {
    if (line === "") continue;
    const change = parseLine(line);
    if (change) {
      builder.apply(change);
      changes++;
    } else if (i === lines.length - 1) {
      // The last line, cut short by a kill mid-write: that change was never acknowledged.
      tornTail = true;
    } else {
      return {
        kind: "unreadable",
        reason: `line ${i + 1} of ${journalName(generation as number)} is damaged`,
      };
    }
  }
  return { kind: "kept", state: builder.build(), generation: generation as number, changes, tornTail };
}

/** The stored bytes of an uploaded file; undefined when they are not there. */
export function readKeptFileBytes(dir: string, fileId: string): Buffer | undefined {
  if (!FILE_ID.test(fileId)) return undefined;
  try {
    return readFileSync(join(dir, FILES, fileId));
  } catch {
    return undefined;
  }
}

/** The open journal of a workspace folder: appends changes, and compacts into a new generation. */
export class WorkspaceJournal {
  private readonly dir: string;
  private fd: number;
  private generation: number;
  /** Bytes appended to the current generation's journal. */
  size = 0;

  /** Writes `state` as the folder's snapshot (generation `after + 1`) and opens that generation's journal. */
  constructor(
    dir: string,
    state: WorkspaceState,
    bytesOf: (fileId: string) => Buffer | undefined,
    after = 0,
  ) {
    this.dir = dir;
    mkdirSync(join(dir, FILES), { recursive: true });
    this.generation = after + 1;
    this.fd = this.writeGeneration(state, bytesOf);
  }

  /** Appends one change (a file's new bytes go to `files/<id>` first); synchronous. */
  append(change: WorkspaceChange): void {
    let line: string;
    if (change.kind === "file" && change.bytes) {
      if (FILE_ID.test(change.file.id)) writeAtomic(join(this.dir, FILES, change.file.id), change.bytes);
      line = JSON.stringify({ kind: "file", file: change.file });
    } else {
      line = JSON.stringify(change);
    }
    const data = Buffer.from(`${line}\n`);
    writeAll(this.fd, data);
    this.size += data.length;
  }

  /** Replaces snapshot and journal with `state` (the next generation). */
  compact(state: WorkspaceState, bytesOf: (fileId: string) => Buffer | undefined): void {
    const old = this.fd;
    this.generation += 1;
    this.fd = this.writeGeneration(state, bytesOf);
    closeSync(old);
    this.size = 0;
  }

  close(): void {
    closeSync(this.fd);
  }

  /** Snapshot first (atomically), then an empty journal; then what the older generations left. */
  private writeGeneration(state: WorkspaceState, bytesOf: (fileId: string) => Buffer | undefined): number {
    const files = join(this.dir, FILES);
    for (const f of state.files) {
      const bytes = f.uploaded && FILE_ID.test(f.id) ? bytesOf(f.id) : undefined;
      if (bytes && !existsSync(join(files, f.id))) writeAtomic(join(files, f.id), bytes);
    }
    const snapshot = { format: FORMAT, generation: this.generation, state };
    writeAtomic(join(this.dir, SNAPSHOT), Buffer.from(JSON.stringify(snapshot)));
    const fd = openSync(join(this.dir, journalName(this.generation)), "w");
    const current = journalName(this.generation);
    for (const name of readdirSync(this.dir)) {
      if (name.startsWith("journal-") && name !== current) rmSync(join(this.dir, name), { force: true });
    }
    const kept = new Set(state.files.map((f) => f.id));
    for (const name of readdirSync(files)) {
      if (!kept.has(name)) rmSync(join(files, name), { force: true });
    }
    return fd;
  }
}

function parseLine(line: string): WorkspaceChange | undefined {
  try {
    return parseWorkspaceChange(JSON.parse(line));
  } catch {
    return undefined;
  }
}

/** tmp file, fsync, rename: a reader sees the old content or the new, never a part. */
function writeAtomic(path: string, data: Buffer): void {
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, "w");
  try {
    writeAll(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

function writeAll(fd: number, data: Buffer): void {
  let offset = 0;
  while (offset < data.length) offset += writeSync(fd, data, offset);
}
