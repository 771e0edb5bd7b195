import type { AuditLog } from "../../store/audit.ts";

/** The turn whose files are read: who asked, where, in which run. */
export interface TurnFilesRun {
  runId: string;
  sessionKey: string;
  userId: string;
  teamId?: string;
  channelId: string;
  threadTs: string;
}

/** The audit rows of a turn's files: each read, and each refusal with the sentence the person got. */
export interface FileAudit {
  read(
    run: TurnFilesRun,
    facts: { fileId: string; name: string; mime: string; size: number; sha256: string; extracted: string },
  ): Promise<void>;
  refused(
    run: TurnFilesRun,
    facts: { fileId: string; name: string; code: string; reason: string } & Record<string, unknown>,
  ): Promise<void>;
}

/**
 * File rows in the hash-chained audit log (`file.read`, `file.refused`), tool `files`. Names are
 * redacted like any argument; a failed write rejects, so a file whose read could not be recorded is
 * not used.
 */
export function createFileAudit(o: {
  audit: Pick<AuditLog, "append">;
  redact: (v: unknown) => unknown;
}): FileAudit {
  const where = (run: TurnFilesRun) => ({
    tool: "files",
    userId: run.userId,
    teamId: run.teamId,
    channelId: run.channelId,
    threadTs: run.threadTs,
    runId: run.runId,
  });
  return {
    async read(run, { fileId, name, mime, size, sha256, extracted }) {
      await o.audit.append({
        action: "file.read",
        ...where(run),
        toolCallId: fileId,
        args: o.redact({ file_id: fileId, name, mime, size, sha256, extracted }),
      });
    },
    async refused(run, { fileId, name, code, reason, ...more }) {
      await o.audit.append({
        action: "file.refused",
        ...where(run),
        toolCallId: fileId,
        args: o.redact({ file_id: fileId, name, code, ...more }),
        error: String(o.redact(reason)),
      });
    },
  };
}
