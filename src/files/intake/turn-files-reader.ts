import { sha256Hex } from "../../core/canonical-json.ts";
import type { Logger } from "../../core/logger.ts";
import type { AuditLog } from "../../store/audit.ts";
import type { ResultStore } from "../../tools/result-store.ts";
import type { FileLimits } from "../file-limits.ts";
import { refuseBySize } from "../refuse-by-size.ts";
import { createFileAudit } from "./file-audit.ts";
import type { SlackFileRef } from "./file-refs.ts";
import { readTurnFiles, type TurnFiles, type TurnFilesRun } from "./read-turn-files.ts";
import type { SlackFiles } from "./slack-files.ts";

/** Reads the files one turn was handed (see `readTurnFiles`). */
export type ReadTurnFiles = (o: {
  refs: SlackFileRef[];
  run: TurnFilesRun;
  logger: Logger;
  signal: AbortSignal;
}) => Promise<TurnFiles>;

/**
 * The readers (file-type, the parse pool, sharp) load with the first file a process reads, not at
 * start: most processes never read one, and they cost tens of MB.
 */
let loaded: Promise<typeof import("../read-file.ts")> | undefined;
const readers = () => {
  loaded ??= import("../read-file.ts");
  return loaded;
};

/** The file reader a worker uses: Slack's side, the audit log, the result store and the limits, wired once. */
export function createTurnFilesReader(o: {
  slack: SlackFiles;
  audit: Pick<AuditLog, "append">;
  redact: (value: unknown) => unknown;
  redactText: (text: string) => string;
  results: Pick<ResultStore, "put">;
  limits: FileLimits & { maxTurnBytes: number };
  imagesAccepted: () => Promise<boolean>;
  transcribe?: (audio: { data: Buffer; mime: string; name: string }, signal: AbortSignal) => Promise<string>;
}): ReadTurnFiles {
  const audit = createFileAudit({ audit: o.audit, redact: o.redact });
  const deps = {
    slack: o.slack,
    audit,
    results: o.results,
    limits: o.limits,
    read: async (bytes: Uint8Array, meta: { name: string; declaredMime?: string }) =>
      (await readers()).readFile(bytes, meta, o.limits),
    sha256: sha256Hex,
    refuseBySize: (size: number, name: string) => refuseBySize(size, name, o.limits),
    imagesAccepted: o.imagesAccepted,
    redactText: o.redactText,
    ...(o.transcribe ? { transcribe: o.transcribe } : {}),
  };
  return (run) => readTurnFiles(deps, run);
}
