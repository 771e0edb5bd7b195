import { shownName } from "./file-name.ts";

/**
 * The sentences a refused file gets. Each names the file and says what the person can do, because it
 * is shown in Slack as is.
 */
export const refusals = {
  tooBig: (name: string, bytes: number, max: number) =>
    `"${shownName(name)}" is ${megabytes(bytes)}, over the ${megabytes(max)} I can read; attach a smaller file or the part that matters.`,
  empty: (name: string) => `"${shownName(name)}" is empty; attach it again with its content.`,
  executable: (name: string, label: string) =>
    `"${shownName(name)}" is a program (${label}), not a document, so I won't open it; attach the document itself.`,
  unsupported: (name: string, label: string) =>
    `"${shownName(name)}" is ${label}, which I can't read; attach a PDF, Word (DOCX), Excel (XLSX), CSV, text, image or audio file instead.`,
  unknownBinary: (name: string) =>
    `I can't tell what kind of file "${shownName(name)}" is (it is neither UTF-8 text nor a type I recognise); save it as PDF, DOCX, XLSX, CSV or UTF-8 text and attach it again.`,
  damaged: (name: string, label: string) =>
    `"${shownName(name)}" looks like ${label} but is damaged or incomplete, so I couldn't read it; export or upload it again.`,
  unreadable: (name: string) =>
    `I couldn't read "${shownName(name)}": it seems damaged or incomplete; export or upload it again.`,
  zipBomb: (name: string, label: string, declared: number) =>
    `"${shownName(name)}" unpacks to ${megabytes(declared)}, far more than ${label} of its size should, so I didn't open it; save it again from the original program or share the part that matters.`,
  imageTooLarge: (name: string, width: number, height: number) =>
    `"${shownName(name)}" is ${width} × ${height} pixels, more than I can open; resize or crop it and attach it again.`,
  tooSlow: (name: string, milliseconds: number) =>
    `"${shownName(name)}" took more than ${milliseconds < 1000 ? `${milliseconds} ms` : `${Math.round(milliseconds / 1000)} s`} to read, so I stopped; attach a smaller file or export just the pages you need.`,
  tooMuchMemory: (name: string) =>
    `"${shownName(name)}" needs more memory to read than I allow; attach a smaller file or export just the part you need.`,
  passwordProtected: (name: string) =>
    `"${shownName(name)}" is password-protected; remove the password and attach it again.`,
  audioTooLong: (name: string, seconds: number, max: number) =>
    `"${shownName(name)}" is ${duration(seconds)} long, over the ${duration(max)} I can transcribe; trim it and attach it again.`,
} as const;

function megabytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  if (mb >= 1024) return `${(mb / 1024).toFixed(1)} GB`;
  return mb >= 10 ? `${Math.round(mb)} MB` : `${mb.toFixed(1)} MB`;
}

function duration(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)} seconds`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} minutes`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}
