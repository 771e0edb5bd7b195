import type { WebClient } from "@slack/web-api";
import { isAllowedFileUrl } from "../files/intake/file-hosts.ts";
import { SlackFileError, type SlackFileInfo, type SlackFiles } from "../files/intake/slack-files.ts";

/** Redirects followed for one download, each to an allowed host again. */
const MAX_REDIRECTS = 3;

/**
 * `SlackFiles` over the Web API: `files.info` through the paced client (tier 4), and the bytes of
 * `url_private` fetched with the bot token from Slack's file hosts only (or `SLACK_API_URL`'s
 * origin), never following a redirect elsewhere, stopped as soon as they pass the cap.
 */
export function createSlackFiles(o: {
  client: WebClient;
  /** The bot token, or where to get it when each download starts (OAuth installs: the workspace's). */
  token: string | (() => Promise<string | undefined>);
  slackApiUrl?: string;
}): SlackFiles {
  return {
    async info(fileId, signal) {
      signal?.throwIfAborted();
      let r: Awaited<ReturnType<WebClient["files"]["info"]>>;
      try {
        r = await o.client.files.info({ file: fileId });
      } catch (err) {
        const code = (err as { data?: { error?: unknown } }).data?.error;
        if (code === "missing_scope") throw new SlackFileError("missing_scope");
        if (code === "file_not_found" || code === "file_deleted") throw new SlackFileError(code);
        throw new SlackFileError("download_failed", String(code ?? (err as Error).message));
      }
      const f = r.file ?? {};
      const shares = f.shares as { public?: object; private?: object } | undefined;
      const sharedIn = [
        ...(f.channels ?? []),
        ...(f.groups ?? []),
        ...(f.ims ?? []),
        ...Object.keys(shares?.public ?? {}),
        ...Object.keys(shares?.private ?? {}),
      ];
      return {
        id: f.id ?? fileId,
        name: f.name ?? f.title ?? fileId,
        ...(f.mimetype ? { mimetype: f.mimetype } : {}),
        size: typeof f.size === "number" ? f.size : 0,
        ...(f.url_private ? { urlPrivate: f.url_private } : {}),
        ...(f.permalink ? { permalink: f.permalink } : {}),
        sharedIn: [...new Set(sharedIn)],
      } satisfies SlackFileInfo;
    },

    async download(url, { maxBytes, signal }) {
      let at = url;
      const token = typeof o.token === "string" ? o.token : ((await o.token()) ?? "");
      for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
        if (!isAllowedFileUrl(at, o.slackApiUrl)) throw new SlackFileError("host_refused", new URL(at).host);
        const res = await fetch(at, {
          headers: { authorization: `Bearer ${token}` },
          redirect: "manual",
          ...(signal ? { signal } : {}),
        }).catch((err: unknown) => {
          throw new SlackFileError("download_failed", (err as Error).message);
        });
        if (res.status >= 300 && res.status < 400) {
          await res.body?.cancel();
          const next = res.headers.get("location");
          if (!next) throw new SlackFileError("download_failed", `redirect ${res.status} without a location`);
          at = new URL(next, at).href;
          continue;
        }
        if (res.status === 404) {
          await res.body?.cancel();
          throw new SlackFileError("file_not_found");
        }
        if (!res.ok) {
          await res.body?.cancel();
          throw new SlackFileError("download_failed", `HTTP ${res.status}`);
        }
        // Slack answers a token without files:read with its sign-in page, status 200.
        if ((res.headers.get("content-type") ?? "").toLowerCase().startsWith("text/html")) {
          await res.body?.cancel();
          throw new SlackFileError("sign_in_page");
        }
        const declared = Number(res.headers.get("content-length") ?? "NaN");
        if (declared > maxBytes) {
          await res.body?.cancel();
          throw new SlackFileError("too_big");
        }
        return readCapped(res, maxBytes);
      }
      throw new SlackFileError("download_failed", "too many redirects");
    },
  };
}

/** The body, refused as soon as it passes `maxBytes` (a wrong or missing Content-Length included). */
async function readCapped(res: Response, maxBytes: number): Promise<Uint8Array> {
  if (!res.body) return new Uint8Array();
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new SlackFileError("too_big");
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}
