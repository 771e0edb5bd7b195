import type { IncomingMessage, ServerResponse } from "node:http";
import { avatarSvg } from "./avatar-svg.ts";
import { botCanRead } from "./file-objects.ts";
import { sendText } from "./http-util.ts";
import { parseBody, readBody } from "./read-request.ts";
import type { Workspace } from "./workspace.ts";

/**
 * The upload URL from `files.getUploadURLExternal`: raw bytes or a multipart body (the first file
 * part; `@slack/web-api` sends one named `body`). Answers as Slack's upload host does: `OK - <bytes>`.
 */
export async function receiveUpload(
  req: IncomingMessage,
  res: ServerResponse,
  { workspace, fileId }: { workspace: Workspace; fileId: string | undefined },
): Promise<void> {
  const file = fileId ? workspace.getFile(fileId) : undefined;
  if (!file) return sendText(res, 404, "not_found");
  const raw = await readBody(req);
  const contentType = req.headers["content-type"] ?? "";
  let bytes = raw;
  if (contentType.toLowerCase().startsWith("multipart/form-data")) {
    const [first] = (await parseBody(raw, contentType)).files.values();
    if (!first) return sendText(res, 400, "no_file_data");
    bytes = first.bytes;
  }
  workspace.storeFileBytes(file.id, bytes);
  sendText(res, 200, `OK - ${bytes.length}`);
}

/**
 * A file's bytes at its `url_private` / `permalink` / `thumb_*` (`?download=1` asks for an
 * attachment), for the bot token only, as Slack does (401 without one, 403 with a wrong one); a token
 * without `files:read` gets Slack's HTML sign-in page (HTTP 200), and a file the bot cannot see (not
 * its own, shared nowhere it is a member) is not found. Never rendered as a page: `nosniff`, a CSP
 * that runs nothing, and only plain images are shown inline.
 */
export function serveFile(
  res: ServerResponse,
  {
    workspace,
    url,
    auth,
    canReadFiles = true,
  }: { workspace: Workspace; url: URL; auth: "ok" | "missing" | "invalid"; canReadFiles?: boolean },
): void {
  if (auth !== "ok") {
    const [status, text] =
      auth === "missing" ? [401, "not_authed: send the bot token"] : [403, "invalid_auth"];
    sendText(res, status, text);
    return;
  }
  if (!canReadFiles) {
    sendText(res, 200, SIGN_IN_PAGE, "text/html; charset=utf-8");
    return;
  }
  const [, , id] = url.pathname.split("/");
  const file = id ? workspace.getFile(id) : undefined;
  if (!file?.uploaded || !botCanRead(workspace, file)) {
    sendText(res, 404, "file_not_found");
    return;
  }
  sendFileBytes(res, file, { download: url.searchParams.has("download"), cacheControl: "private, no-store" });
}

/** What Slack answers at a file URL to a token without `files:read`: its sign-in page, not the file. */
const SIGN_IN_PAGE =
  '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Slack</title></head>' +
  "<body><h1>Sign in to your workspace</h1><p>Enter your email address and password.</p></body></html>";

const SAFE_INLINE = /^image\/(png|jpeg|gif|webp)$/;

/**
 * An uploaded file's bytes, never rendered as a page: `nosniff`, a CSP that runs nothing, and only
 * plain images inline (anything else, or `download`, is an attachment with a sanitized name).
 */
export function sendFileBytes(
  res: ServerResponse,
  file: { mimetype: string; name: string; bytes: Buffer | Uint8Array },
  o: { download: boolean; cacheControl: string },
): void {
  const inline = !o.download && SAFE_INLINE.test(file.mimetype);
  res.writeHead(200, {
    "content-type": file.mimetype,
    "content-length": String(file.bytes.length),
    "content-disposition": `${inline ? "inline" : "attachment"}; filename="${file.name.replace(/[^\w.-]/g, "_")}"`,
    "content-security-policy": "sandbox; default-src 'none'",
    "x-content-type-options": "nosniff",
    "cache-control": o.cacheControl,
  });
  res.end(file.bytes);
}

/** `/avatars/<user id>.svg`: the `image_48` of every sandbox user. */
export function serveAvatar(
  res: ServerResponse,
  { workspace, url }: { workspace: Workspace; url: URL },
): void {
  const id = url.pathname.slice("/avatars/".length).replace(/\.svg$/, "");
  const user = workspace.getUser(id);
  if (!user) {
    sendText(res, 404, "user_not_found");
    return;
  }
  sendText(res, 200, avatarSvg(user), "image/svg+xml");
}
