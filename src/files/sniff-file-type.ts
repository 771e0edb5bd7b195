import { fileTypeFromBuffer } from "file-type";
import { extensionOf } from "./file-name.ts";

export type DocumentFormat = "pdf" | "docx" | "xlsx";
export type ImageMime = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/** What the bytes of a file are, as far as reading it goes. */
export type SniffedType =
  | { kind: "image"; mime: ImageMime }
  | { kind: "document"; format: DocumentFormat; mime: string }
  | { kind: "audio"; mime: string }
  /** No binary signature: text if it decodes as such (`csv` chosen by the name only). */
  | { kind: "undetected"; format: "csv" | "text" }
  | { kind: "executable"; mime?: string; label: string }
  | { kind: "unsupported"; mime: string; label: string };

const IMAGES: Record<string, ImageMime> = {
  "image/png": "image/png",
  "image/apng": "image/png",
  "image/jpeg": "image/jpeg",
  "image/gif": "image/gif",
  "image/webp": "image/webp",
};

const DOCUMENTS: Record<string, DocumentFormat> = {
  "application/pdf": "pdf",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
  "application/vnd.ms-excel.sheet.macroenabled.12": "xlsx",
};

/** Audio passed on as is; WebM is taken as audio (Slack's voice clips are WebM or M4A). */
const AUDIO: Record<string, string> = {
  "audio/wav": "audio/wav",
  "audio/mpeg": "audio/mpeg",
  "audio/x-m4a": "audio/mp4",
  "audio/mp4": "audio/mp4",
  "audio/ogg": "audio/ogg",
  "audio/ogg; codecs=opus": "audio/ogg",
  "audio/opus": "audio/ogg",
  "audio/webm": "audio/webm",
  "video/webm": "audio/webm",
  "audio/flac": "audio/flac",
  "audio/x-flac": "audio/flac",
};

const PROGRAMS: Record<string, string> = {
  "application/x-msdownload": "a Windows executable",
  "application/x-elf": "a Linux executable",
  "application/x-mach-binary": "a macOS executable",
  "application/java-vm": "Java bytecode",
  "application/java-archive": "a Java archive",
  "application/wasm": "WebAssembly",
  "application/vnd.android.package-archive": "an Android app",
  "application/x-shockwave-flash": "a Flash program",
  "application/x-ms-shortcut": "a Windows shortcut",
  "application/x-ms-regedit": "a Windows registry file",
  "application/x-deb": "a Debian package",
  "application/x-rpm": "an RPM package",
};

/** Names that promise a binary document, image or media file: a script behind one is disguised. */
const BINARY_NAMES = new Set(
  "pdf doc docx docm xls xlsx xlsm ppt pptx png jpg jpeg gif webp bmp tif tiff heic wav mp3 m4a ogg webm flac mp4 mov zip".split(
    " ",
  ),
);

const CSV_NAMES = new Set(["csv", "tsv"]);

/** Signatures of formats that are text to read (XML, calendars, contacts, RTF). */
const TEXT_MIMES = new Set(["application/xml", "text/calendar", "text/vcard", "application/rtf"]);

/**
 * The file's type from its bytes (`file-type`); the name only chooses CSV over plain text for bytes
 * with no signature, and tells a script (`#!`) that pretends to be a document from one named as code.
 */
export async function sniffFileType(bytes: Uint8Array, name: string): Promise<SniffedType> {
  const found = await fileTypeFromBuffer(bytes).catch(() => undefined);
  const extension = extensionOf(name);
  if (!found) {
    if (startsWithShebang(bytes) && BINARY_NAMES.has(extension))
      return { kind: "executable", label: "a script" };
    return { kind: "undetected", format: CSV_NAMES.has(extension) ? "csv" : "text" };
  }
  const { mime, ext } = found;
  if (TEXT_MIMES.has(mime)) return { kind: "undetected", format: "text" };
  const image = IMAGES[mime];
  if (image) return { kind: "image", mime: image };
  const format = DOCUMENTS[mime];
  if (format) return { kind: "document", format, mime };
  const audio = AUDIO[mime];
  if (audio) return { kind: "audio", mime: audio };
  const program = PROGRAMS[mime];
  if (program) return { kind: "executable", mime, label: program };
  return { kind: "unsupported", mime, label: describe(mime, ext) };
}

function startsWithShebang(bytes: Uint8Array): boolean {
  let start = 0;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3;
  return bytes[start] === 0x23 && bytes[start + 1] === 0x21;
}

function describe(mime: string, ext: string): string {
  if (mime.startsWith("video/")) return `a video (${ext.toUpperCase()})`;
  if (mime.startsWith("image/")) return `an image format I don't read (${ext.toUpperCase()})`;
  if (mime.startsWith("audio/")) return `an audio format I don't read (${ext.toUpperCase()})`;
  if (mime === "application/x-cfb") return "an old Office file (DOC, XLS or PPT)";
  if (mime.includes("presentationml")) return "a PowerPoint file (PPTX)";
  const shown = ext.toUpperCase();
  return `${/^[AEFHILMNORSX]/.test(shown) ? "an" : "a"} ${shown} file`;
}
