import { existsSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../core/logger.ts";
import { assistantThreadsOf } from "./assistant-threads.ts";
import { seedDemoUserGroups, seedDemoWorkspace } from "./seed-demo-workspace.ts";
import { Workspace } from "./workspace.ts";
import { readKeptFileBytes, readKeptWorkspace, WorkspaceJournal } from "./workspace-journal.ts";
import type { WorkspaceChange, WorkspaceState } from "./workspace-state.ts";
import { WorkspaceStateBuilder } from "./workspace-state-builder.ts";

/** The journal is compacted into a new snapshot once it holds this many bytes. */
export const COMPACT_AFTER_BYTES = 8 * 1024 * 1024;

export interface PersistedWorkspace {
  workspace: Workspace;
  /**
   * Writes the workspace as it is now (a compacted snapshot) and journals every later change. Call it
   * once this process owns the data dir (after storage opened it).
   */
  start(): void;
  close(): void;
}

/**
 * The sandbox workspace kept in `dir` (`$HERMES_DATA_DIR/sandbox`): the one a restart (SIGTERM or
 * kill -9) left, or the seeded demo workspace when there is none. One that cannot be read gives a
 * fresh demo workspace; `start()` moves it aside to `<dir>.unreadable` with one warning. Reading
 * writes nothing: `start()` does.
 */
export function loadPersistedWorkspace(o: {
  dir: string;
  logger: Logger;
  /** Whether the data dir already holds other data (a missing workspace beside it is worth a warning). */
  dataExisted?: boolean;
  /** The journal's size that starts a compaction; `COMPACT_AFTER_BYTES` by default. */
  compactAfterBytes?: number;
}): PersistedWorkspace {
  const { dir, logger } = o;
  let kept: ReturnType<typeof readKeptWorkspace>;
  try {
    kept = readKeptWorkspace(dir);
  } catch (err) {
    kept = { kind: "unreadable", reason: (err as Error).message };
  }
  let workspace: Workspace;
  let generation = 0;
  if (kept.kind === "kept") {
    workspace = new Workspace();
    workspace.importState(kept.state, (id) => readKeptFileBytes(dir, id));
    assistantThreadsOf(workspace).restore(kept.state.assistantThreads);
    seedDemoUserGroups(workspace);
    generation = kept.generation;
    logger.info(
      { dir, messages: kept.state.messages.length, changes: kept.changes, tornTail: kept.tornTail },
      "sandbox workspace restored",
    );
  } else {
    workspace = seedDemoWorkspace();
  }
  /** Said (and the unreadable folder moved aside) by `start()`, once this process owns the data dir. */
  const replaceKept = () => {
    if (kept.kind === "unreadable") {
      const aside = `${dir}.unreadable`;
      rmSync(aside, { recursive: true, force: true });
      renameSync(dir, aside);
      logger.warn(
        { dir, reason: kept.reason, movedTo: aside },
        `The sandbox workspace in ${dir} could not be read (${kept.reason}); starting a fresh demo workspace. Links to its threads show as no longer available; the unreadable copy is in ${aside}.`,
      );
    } else if (kept.kind === "missing" && o.dataExisted) {
      logger.warn(
        { dir },
        `No sandbox workspace found in ${dir}; starting a fresh demo workspace. Links to earlier threads show as no longer available.`,
      );
    }
  };

  let journal: WorkspaceJournal | undefined;
  let failed = false;
  const bytesOf = (id: string) => workspace.getFile(id)?.bytes;
  const fullState = (): WorkspaceState =>
    new WorkspaceStateBuilder({
      ...workspace.exportState(),
      assistantThreads: assistantThreadsOf(workspace).all(),
    }).build();
  const record = (change: WorkspaceChange) => {
    if (!journal) return;
    try {
      journal.append(change);
      if (journal.size > (o.compactAfterBytes ?? COMPACT_AFTER_BYTES)) journal.compact(fullState(), bytesOf);
      failed = false;
    } catch (err) {
      // The workspace keeps working; what could not be written is gone after a restart.
      if (!failed) logger.error({ err, dir }, `Could not write the sandbox workspace to ${dir}.`);
      failed = true;
    }
  };
  let unsubscribe: (() => void) | undefined;

  return {
    workspace,
    start() {
      if (journal) return;
      try {
        replaceKept();
        journal = new WorkspaceJournal(dir, fullState(), bytesOf, generation);
      } catch (err) {
        logger.error(
          { err, dir },
          `Could not write the sandbox workspace to ${dir}; it is kept in memory only until Hermes stops.`,
        );
        return;
      }
      workspace.recordChanges(record);
      unsubscribe = assistantThreadsOf(workspace).subscribe((thread) =>
        record({ kind: "assistant_thread", thread }),
      );
    },
    close() {
      workspace.recordChanges(undefined);
      unsubscribe?.();
      journal?.close();
      journal = undefined;
    },
  };
}

/** `$HERMES_DATA_DIR/sandbox`, and whether the data dir already held a database. */
export function sandboxDirOf(dataDir: string): { dir: string; dataExisted: boolean } {
  return { dir: join(dataDir, "sandbox"), dataExisted: existsSync(join(dataDir, "pg")) };
}
