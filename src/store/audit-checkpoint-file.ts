import { existsSync, readFileSync } from "node:fs";
import { appendFile, mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { AuditCheckpoint } from "./audit-checkpoint.ts";

/** Default checkpoint file under the data dir (`HERMES_AUDIT_CHECKPOINT_FILE` overrides it). */
export function checkpointFilePath(env: {
  HERMES_DATA_DIR: string;
  HERMES_AUDIT_CHECKPOINT_FILE?: string | undefined;
}) {
  return env.HERMES_AUDIT_CHECKPOINT_FILE ?? join(env.HERMES_DATA_DIR, "audit-checkpoints.jsonl");
}

/** Appends one checkpoint as a JSON line (the file is only ever appended to, never rewritten). */
export async function appendCheckpoint(file: string, checkpoint: AuditCheckpoint): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await appendFile(file, `${JSON.stringify(checkpoint)}\n`, { flag: "a" });
}

/** One entry of `--checkpoint`: its parsed JSON, or why it could not be read, and where it came from. */
export type CheckpointInput = { where: string; value: unknown } | { where: string; error: string };

/**
 * `--checkpoint` takes one checkpoint as JSON (as posted to the admin channel) or a file of them,
 * one per line (the JSONL the schedule writes); every line is checked.
 */
export function readCheckpointArg(arg: string): CheckpointInput[] {
  const text = arg.trim();
  if (text.startsWith("{")) return [parseLine(text, "the checkpoint given")];
  if (!existsSync(arg)) throw new Error(`--checkpoint: no such file ${arg} (or pass the checkpoint's JSON)`);
  const out: CheckpointInput[] = [];
  readFileSync(arg, "utf8")
    .split("\n")
    .forEach((line, i) => {
      if (line.trim()) out.push(parseLine(line, `${arg} line ${i + 1}`));
    });
  if (out.length === 0) throw new Error(`--checkpoint: ${arg} holds no checkpoints`);
  return out;
}

function parseLine(text: string, where: string): CheckpointInput {
  try {
    return { where, value: JSON.parse(text) as unknown };
  } catch {
    return { where, error: "not JSON" };
  }
}
