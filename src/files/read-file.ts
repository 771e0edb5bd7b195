import { capText } from "./cap-text.ts";
import { decodeText, looksLikeText } from "./decode-text.ts";
import { type FileLimits, fileLimits } from "./file-limits.ts";
import { extensionOf } from "./file-name.ts";
import { refusals } from "./file-refusals.ts";
import { type ParseOutcome, parseOffThread } from "./parse-off-thread.ts";
import { type ImageReading, readImage } from "./read-image.ts";
import { refuseBySize } from "./refuse-by-size.ts";
import { type DocumentFormat, sniffFileType } from "./sniff-file-type.ts";
import { wavSeconds } from "./wav-duration.ts";
import { checkZipSizes } from "./zip-guard.ts";

export { sha256Hex } from "../core/canonical-json.ts";
export { refuseBySize } from "./refuse-by-size.ts";

/** What one attached file gives the model, or the sentence saying why it gives nothing. */
export type FileReading =
  | {
      kind: "text";
      format: "pdf" | "docx" | "xlsx" | "csv" | "text";
      mime: string;
      /** Extracted text, at most `maxTextChars` characters. */
      text: string;
      truncated: boolean;
      /** Characters extracted before the cut (equal to `text.length` when nothing was cut). */
      chars: number;
      /** What was read, for a person: "3 pages", "2 sheets, 120 rows". */
      detail?: string;
    }
  | ImageReading
  | { kind: "audio"; mime: string; data: Buffer; seconds?: number }
  | {
      kind: "refused";
      mime?: string;
      /** One sentence naming the file, for the person who attached it. */
      reason: string;
      /** The technical cause, for logs only (never shown in Slack). */
      cause?: string;
    };

type Refused = Extract<FileReading, { kind: "refused" }>;

/** Text up to this size is decoded on the main thread (a few milliseconds at most). */
const MAIN_THREAD_TEXT_BYTES = 256 * 1024;

const LABELS: Record<DocumentFormat | "csv", string> = {
  pdf: "a PDF",
  docx: "a Word document",
  xlsx: "an Excel workbook",
  csv: "a CSV file",
};

/**
 * Reads one file's bytes into text, a downscaled image or audio for the model. The type comes from
 * the bytes, never the name; every bound in `limits` (the defaults under any given) is checked before
 * the work it guards; documents are parsed off the main thread. Never throws: anything unreadable,
 * hostile or unsupported is `refused` with a sentence naming the file.
 */
export async function readFile(
  bytes: Uint8Array,
  meta: { name: string; declaredMime?: string },
  limits?: Partial<FileLimits>,
): Promise<FileReading> {
  const bounds = fileLimits(limits);
  const { name } = meta;
  try {
    const tooBig = refuseBySize(bytes.byteLength, name, bounds);
    if (tooBig) return { kind: "refused", reason: tooBig };
    const sniffed = await sniffFileType(bytes, name);
    switch (sniffed.kind) {
      case "image":
        return await readImage(bytes, sniffed.mime, name, bounds);
      case "document":
        return await readDocument(bytes, sniffed.format, sniffed.mime, name, bounds);
      case "audio":
        return readAudio(bytes, sniffed.mime, name, bounds);
      case "undetected":
        return await readText(bytes, sniffed.format, meta, bounds);
      case "executable":
        return { kind: "refused", mime: sniffed.mime, reason: refusals.executable(name, sniffed.label) };
      case "unsupported":
        // An encrypted DOCX/XLSX is stored in the old compound-file container.
        if (sniffed.mime === "application/x-cfb" && /^(docx|xlsx|xlsm)$/.test(extensionOf(name)))
          return { kind: "refused", mime: sniffed.mime, reason: refusals.passwordProtected(name) };
        return { kind: "refused", mime: sniffed.mime, reason: refusals.unsupported(name, sniffed.label) };
    }
  } catch (error) {
    return { kind: "refused", reason: refusals.unreadable(name), cause: causeOf(error) };
  }
}

async function readDocument(
  bytes: Uint8Array,
  format: DocumentFormat,
  mime: string,
  name: string,
  limits: FileLimits,
): Promise<FileReading> {
  if (format !== "pdf") {
    const zip = checkZipSizes(bytes, limits);
    if (!zip.ok && zip.problem === "unreadable")
      return { kind: "refused", mime, reason: refusals.damaged(name, LABELS[format]) };
    if (!zip.ok)
      return { kind: "refused", mime, reason: refusals.zipBomb(name, LABELS[format], zip.uncompressedBytes) };
  }
  const outcome = await parseOffThread({ format, bytes, maxChars: limits.maxTextChars }, limits);
  if (!outcome.ok) return refusedParse(outcome, mime, name, LABELS[format], limits);
  return { kind: "text", format, mime, ...outcome.parsed };
}

async function readText(
  bytes: Uint8Array,
  format: "csv" | "text",
  meta: { name: string; declaredMime?: string },
  limits: FileLimits,
): Promise<FileReading> {
  if (!looksLikeText(bytes)) return { kind: "refused", reason: refusals.unknownBinary(meta.name) };
  const mime =
    format === "csv" ? "text/csv" : meta.declaredMime?.startsWith("text/") ? meta.declaredMime : "text/plain";
  // A small text file is decoded here; a larger one (decoding 25 MB of non-ASCII text takes over half a
  // second) and every CSV (parsed by exceljs) on a worker.
  const text =
    format === "text" && bytes.byteLength <= MAIN_THREAD_TEXT_BYTES ? decodeText(bytes) : undefined;
  if (text !== undefined) return { kind: "text", format, mime, ...capText(text, limits.maxTextChars) };
  const maxChars = limits.maxTextChars;
  const outcome =
    format === "csv"
      ? await parseOffThread(
          { format, bytes, tabSeparated: extensionOf(meta.name) === "tsv", maxChars },
          limits,
        )
      : await parseOffThread({ format, bytes, maxChars }, limits);
  if (outcome.ok) return { kind: "text", format, mime, ...outcome.parsed };
  if (outcome.problem === "damaged")
    return { kind: "refused", reason: refusals.unknownBinary(meta.name), cause: outcome.cause };
  return refusedParse(outcome, mime, meta.name, format === "csv" ? LABELS.csv : "a text file", limits);
}

function readAudio(bytes: Uint8Array, mime: string, name: string, limits: FileLimits): FileReading {
  const seconds = mime === "audio/wav" ? wavSeconds(bytes) : undefined;
  if (seconds !== undefined && seconds > limits.maxAudioSeconds)
    return { kind: "refused", mime, reason: refusals.audioTooLong(name, seconds, limits.maxAudioSeconds) };
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return seconds === undefined ? { kind: "audio", mime, data } : { kind: "audio", mime, data, seconds };
}

function refusedParse(
  outcome: Extract<ParseOutcome, { ok: false }>,
  mime: string,
  name: string,
  label: string,
  limits: FileLimits,
): Refused {
  const reason =
    outcome.problem === "password"
      ? refusals.passwordProtected(name)
      : outcome.problem === "timeout"
        ? refusals.tooSlow(name, limits.parseTimeoutMs)
        : outcome.problem === "memory"
          ? refusals.tooMuchMemory(name)
          : refusals.damaged(name, label);
  return { kind: "refused", mime, reason, cause: outcome.cause };
}

function causeOf(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
