/** What the main thread asks a parse worker for, and what comes back. */
export type ParseFormat = "pdf" | "docx" | "xlsx" | "csv" | "text";

export type ParseRequest =
  | { id: number; format: "pdf" | "docx" | "xlsx" | "text"; bytes: Uint8Array; maxChars: number }
  /** A CSV file; `tabSeparated` when its name says TSV, else the separator is read from its first line. */
  | { id: number; format: "csv"; bytes: Uint8Array; tabSeparated: boolean; maxChars: number };

/** Extracted text, already cut to `maxChars`, so what crosses back is small whatever the file held. */
export interface ParsedText {
  text: string;
  truncated: boolean;
  chars: number;
  detail?: string;
}

/** Why a parse gave no text: the file is broken (or, for text, not text at all), or locked with a password. */
export type ParseProblem = "damaged" | "password";

export type ParseReply =
  | { id: number; ok: true; parsed: ParsedText }
  | { id: number; ok: false; problem: ParseProblem; cause: string };
