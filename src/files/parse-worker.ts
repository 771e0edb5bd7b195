import { parentPort } from "node:worker_threads";
import { capText } from "./cap-text.ts";
import { decodeText } from "./decode-text.ts";
import type { ParsedText, ParseReply, ParseRequest } from "./parse-messages.ts";

/**
 * The worker side of `parse-off-thread.ts`: one document at a time, each format's library loaded on
 * its first document and kept for the next (exceljs alone takes ~250 ms to load).
 */
async function parse(request: ParseRequest): Promise<ParsedText> {
  switch (request.format) {
    case "pdf":
      return (await import("./pdf-text.ts")).pdfText(request.bytes, request.maxChars);
    case "docx":
      return (await import("./docx-text.ts")).docxText(request.bytes, request.maxChars);
    case "xlsx":
      return (await import("./xlsx-text.ts")).xlsxText(request.bytes, request.maxChars);
    case "csv":
      return (await import("./csv-text.ts")).csvText(request.bytes, request.tabSeparated, request.maxChars);
    case "text":
      return plainText(request.bytes, request.maxChars);
  }
}

function plainText(bytes: Uint8Array, maxChars: number): ParsedText {
  const text = decodeText(bytes);
  if (text === undefined) throw new Error("the bytes are not UTF-8 or UTF-16 text");
  return capText(text, maxChars);
}

function isPasswordError(error: unknown): boolean {
  return (
    error instanceof Error && (error.name === "PasswordException" || /encrypt|password/i.test(error.message))
  );
}

parentPort?.on("message", async (request: ParseRequest) => {
  let reply: ParseReply;
  try {
    reply = { id: request.id, ok: true, parsed: await parse(request) };
  } catch (error) {
    const cause = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    reply = { id: request.id, ok: false, problem: isPasswordError(error) ? "password" : "damaged", cause };
  }
  parentPort?.postMessage(reply);
});
