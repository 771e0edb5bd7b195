import type { IncomingMessage } from "node:http";
import type { ApiArgs } from "./api-args.ts";

const MAX_BODY_BYTES = 50 * 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    size += buf.length;
    if (size > MAX_BODY_BYTES) throw new Error("request body too large");
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

export interface ParsedBody {
  fields: ApiArgs;
  /** File parts of a multipart body, by field name. */
  files: Map<string, { filename: string; bytes: Buffer }>;
}

/** Parses a form-encoded, JSON or multipart body (multipart through the platform's own `Request`). */
export async function parseBody(body: Buffer, contentType: string | undefined): Promise<ParsedBody> {
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  const files = new Map<string, { filename: string; bytes: Buffer }>();
  if (body.length === 0) return { fields: {}, files };
  if (type === "application/json") {
    const parsed: unknown = JSON.parse(body.toString("utf8"));
    const fields =
      typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as ApiArgs) : {};
    return { fields, files };
  }
  if (type === "multipart/form-data") {
    const form = await new Request("http://sandbox.invalid/", {
      method: "POST",
      headers: { "content-type": contentType ?? "" },
      body: new Uint8Array(body),
    }).formData();
    const fields: ApiArgs = {};
    for (const [name, value] of form.entries()) {
      if (typeof value === "string") fields[name] = value;
      else files.set(name, { filename: value.name, bytes: Buffer.from(await value.arrayBuffer()) });
    }
    return { fields, files };
  }
  return { fields: Object.fromEntries(new URLSearchParams(body.toString("utf8"))), files };
}

/** Reads the Web API call's arguments (query string and body) and its token (Bearer header or `token`). */
export async function readApiRequest(req: IncomingMessage): Promise<{ args: ApiArgs; token?: string }> {
  const query = Object.fromEntries(new URL(req.url ?? "/", "http://sandbox.invalid").searchParams);
  const { fields } = await parseBody(await readBody(req), req.headers["content-type"]);
  const { token: bodyToken, ...args } = { ...query, ...fields };
  const header = req.headers.authorization;
  const bearer = header?.startsWith("Bearer ") ? header.slice("Bearer ".length).trim() : undefined;
  const token = bearer || (typeof bodyToken === "string" && bodyToken) || undefined;
  return token ? { args, token } : { args };
}
