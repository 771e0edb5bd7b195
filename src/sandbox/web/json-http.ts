import type { IncomingMessage, ServerResponse } from "node:http";
import { sendJson } from "../http-util.ts";

/** A refusal the page shows as is: a stable `error` code and a short sentence. */
export class PageApiError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = "PageApiError";
    this.status = status;
    this.code = code;
  }
}

const MAX_JSON_BYTES = 64 * 1024;

/**
 * The JSON body of a page request. Only `application/json` is accepted, so another site cannot post
 * here with a plain form (a cross-origin JSON post needs a CORS preflight this server never grants).
 * A body already parsed by an Express JSON parser mounted in front is used as is. At most `maxBytes`
 * (64 KB unless the route takes files).
 */
export async function readJson(req: IncomingMessage, maxBytes = MAX_JSON_BYTES): Promise<unknown> {
  const type = (req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json")
    throw new PageApiError(415, "unsupported_media_type", "Send JSON (content-type: application/json).");
  const parsed = (req as IncomingMessage & { body?: unknown }).body;
  if (parsed !== undefined && typeof parsed === "object" && parsed !== null) return parsed;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    size += buf.length;
    if (size > maxBytes) throw new PageApiError(413, "too_large", "The request is too large.");
    chunks.push(buf);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
  } catch {
    throw new PageApiError(400, "invalid_json", "The request body is not valid JSON.");
  }
}

export function sendOk(res: ServerResponse, body: Record<string, unknown> = {}): void {
  sendJson(res, 200, { ok: true, ...body }, { "cache-control": "no-store" });
}

export function sendError(res: ServerResponse, error: PageApiError): void {
  sendJson(res, error.status, { ok: false, error: error.code, message: error.message });
}
