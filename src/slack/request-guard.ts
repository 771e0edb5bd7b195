import { hash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "../core/logger.ts";
import { decidePayload } from "./payload-shape.ts";
import { verifySlackSignature } from "./verify-signature.ts";

/** Where Slack sends events, clicks and slash commands. */
export const SLACK_EVENTS_PATH = "/slack/events";

/** Slack's request bodies are a few KiB; Bolt's own limit is 4 MiB. */
export const MAX_SLACK_BODY_BYTES = 1024 * 1024;

/** A request the guard let through: its body, checked and parsed once. */
export interface GuardedBody {
  /** As Bolt's receiver would parse it (a click's `payload` field, a command's form fields, JSON). */
  body: Record<string, unknown>;
  /** sha256 (hex) of the signed body: how a replayed command or click is recognised. */
  sha256: string;
}

/**
 * Whether `req` is a request to the endpoint `path` as Bolt routes one: a POST whose URL pathname,
 * read as Bolt reads it (`new URL(url, base).pathname`: no query or fragment, dot segments
 * resolved), is `path`.
 */
export function isEventsRequest(req: IncomingMessage, path = SLACK_EVENTS_PATH): boolean {
  if (req.method !== "POST") return false;
  try {
    return new URL(req.url ?? "/", "http://localhost").pathname === path;
  } catch {
    return false;
  }
}

/**
 * Checks a request to Slack's endpoint before anything acts on it: reads the body (413 past the
 * limit), checks the signature and the timestamp in both directions (401), then the body's shape (see
 * `decidePayload`: 400/415, or a 200 ack for kinds Hermes ignores). Every refusal is answered and
 * logged with its reason, and resolves to undefined; a request that passes resolves to its body.
 */
export function createRequestGuard(options: {
  signingSecret: string;
  logger: Logger;
  maxBodyBytes?: number;
  now?: () => number;
}) {
  const limit = options.maxBodyBytes ?? MAX_SLACK_BODY_BYTES;
  const log = options.logger.child({ component: "slack-request-guard" });

  return async (req: IncomingMessage, res: ServerResponse): Promise<GuardedBody | undefined> => {
    const refuse = (status: number, reason: string, level: "warn" | "info" = "warn") => {
      log[level]({ status, reason, retryNum: req.headers["x-slack-retry-num"] }, "slack request refused");
      res.writeHead(status, { "content-type": "text/plain; charset=utf-8" });
      res.end(status === 200 ? "" : reason);
      return undefined;
    };

    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > limit) return refuseTooLarge(req, res, () => refuse(413, "request body too large"));
    const raw = await readLimited(req, limit);
    if (raw === "too_large") return refuseTooLarge(req, res, () => refuse(413, "request body too large"));
    if (raw === "aborted") return undefined;

    const signature = verifySlackSignature({
      signingSecret: options.signingSecret,
      body: raw,
      signature: header(req, "x-slack-signature"),
      timestamp: header(req, "x-slack-request-timestamp"),
      nowMs: options.now?.() ?? Date.now(),
    });
    if (!signature.ok) return refuse(401, `invalid request signature: ${signature.reason}`);

    const decision = decidePayload(raw, req.headers["content-type"]);
    if (decision.kind === "reject") return refuse(decision.status, decision.reason);
    if (decision.kind === "ignore") return refuse(200, `ignored: ${decision.reason}`, "info");
    return { body: decision.body, sha256: hash("sha256", raw, "hex") };
  };
}

/** A request header's value (the first, when it came more than once). */
export function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Stops reading at `limit` bytes: a huge body is never buffered. */
function readLimited(req: IncomingMessage, limit: number): Promise<Buffer | "too_large" | "aborted"> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (value: Buffer | "too_large" | "aborted") => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      resolve(value);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) done("too_large");
      else chunks.push(chunk);
    };
    const onEnd = () => done(Buffer.concat(chunks));
    const onError = () => done("aborted");
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
  });
}

/** Answers 413 and closes the connection, so the rest of the body is not read. */
function refuseTooLarge(req: IncomingMessage, res: ServerResponse, refuse: () => undefined): undefined {
  res.setHeader("connection", "close");
  refuse();
  req.resume();
  return undefined;
}
