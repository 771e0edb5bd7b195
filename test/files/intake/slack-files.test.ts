import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { WebClient } from "@slack/web-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAllowedFileUrl } from "../../../src/files/intake/file-hosts.ts";
import { fileRefsOf } from "../../../src/files/intake/file-refs.ts";
import { SlackFileError, slackFileSentence } from "../../../src/files/intake/slack-files.ts";
import { createSlackFiles } from "../../../src/slack/slack-files.ts";

/** A stand-in for Slack's file host (and a host that is not Slack's), over real HTTP. */
let server: Server;
let other: Server;
let base: string;
let otherBase: string;
const seen: Array<{ path: string; auth: string | undefined }> = [];

beforeAll(async () => {
  other = createServer((req, res) => {
    seen.push({ path: `other${req.url}`, auth: req.headers.authorization });
    res.end("not slack");
  });
  await new Promise<void>((r) => other.listen(0, "127.0.0.1", r));
  otherBase = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  server = createServer((req, res) => {
    seen.push({ path: req.url ?? "", auth: req.headers.authorization });
    if (req.headers.authorization !== "Bearer xoxb-files") {
      res.statusCode = 403;
      return res.end("invalid_auth");
    }
    if (req.url === "/files/ok") return res.end(Buffer.from("hello file"));
    if (req.url === "/files/big") {
      res.setHeader("content-length", "5000");
      return res.end(Buffer.alloc(5000));
    }
    if (req.url === "/files/lying") {
      // No Content-Length: the cap must hold while reading.
      res.write(Buffer.alloc(3000));
      return res.end(Buffer.alloc(3000));
    }
    if (req.url === "/files/login") {
      res.setHeader("content-type", "text/html; charset=utf-8");
      return res.end("<html>Sign in to Slack</html>");
    }
    if (req.url === "/files/hop") {
      res.statusCode = 302;
      res.setHeader("location", "/files/ok");
      return res.end();
    }
    if (req.url === "/files/away") {
      res.statusCode = 302;
      res.setHeader("location", `${otherBase}/steal`);
      return res.end();
    }
    res.statusCode = 404;
    res.end("file_not_found");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await new Promise((r) => other.close(r));
});

const files = () =>
  createSlackFiles({ client: {} as WebClient, token: "xoxb-files", slackApiUrl: `${base}/api/` });

describe("downloading a shared file", () => {
  it("fetches from the allowed origin with the bot token, following a redirect there", async () => {
    const direct = await files().download(`${base}/files/ok`, { maxBytes: 100 });
    expect(Buffer.from(direct).toString()).toBe("hello file");
    const bytes = await files().download(`${base}/files/hop`, { maxBytes: 100 });
    expect(Buffer.from(bytes).toString()).toBe("hello file");
  });

  it("never sends the token elsewhere: another host, or a redirect to one, is refused", async () => {
    seen.length = 0;
    await expect(files().download(`${otherBase}/x`, { maxBytes: 100 })).rejects.toMatchObject({
      code: "host_refused",
    });
    await expect(files().download(`${base}/files/away`, { maxBytes: 100 })).rejects.toMatchObject({
      code: "host_refused",
    });
    expect(seen.filter((s) => s.path.startsWith("other"))).toEqual([]);
  });

  it("stops at the cap, whether the size is declared or not, and names a sign-in page", async () => {
    await expect(files().download(`${base}/files/big`, { maxBytes: 4000 })).rejects.toMatchObject({
      code: "too_big",
    });
    await expect(files().download(`${base}/files/lying`, { maxBytes: 4000 })).rejects.toMatchObject({
      code: "too_big",
    });
    await expect(files().download(`${base}/files/login`, { maxBytes: 4000 })).rejects.toMatchObject({
      code: "sign_in_page",
    });
    await expect(files().download(`${base}/files/gone`, { maxBytes: 4000 })).rejects.toMatchObject({
      code: "file_not_found",
    });
  });
});

describe("file hosts and references", () => {
  it("allows Slack's file hosts over HTTPS and the configured API origin only", () => {
    expect(isAllowedFileUrl("https://files.slack.com/files-pri/T1-F1/a.png")).toBe(true);
    expect(isAllowedFileUrl("https://files-origin.slack.com/x")).toBe(true);
    expect(isAllowedFileUrl("http://files.slack.com/x")).toBe(false);
    expect(isAllowedFileUrl("https://files.slack.com.evil.example/x")).toBe(false);
    expect(isAllowedFileUrl("https://evil.example/files.slack.com")).toBe(false);
    expect(isAllowedFileUrl("https://user:pw@files.slack.com/x")).toBe(false);
    expect(isAllowedFileUrl("https://files.slack.com:8443/x")).toBe(false);
    expect(isAllowedFileUrl("http://127.0.0.1:9/files/x", "http://127.0.0.1:9/api/")).toBe(true);
    expect(isAllowedFileUrl("http://127.0.0.1:10/files/x", "http://127.0.0.1:9/api/")).toBe(false);
    expect(isAllowedFileUrl("not a url")).toBe(false);
  });

  it("takes file ids and names from an event, never its URLs, and skips what is not a file", () => {
    const refs = fileRefsOf([
      {
        id: "F0ABC123",
        name: "error.png",
        mimetype: "image/png",
        size: 10,
        url_private: "https://evil.example/x",
      },
      { id: "not-an-id", name: "x" },
      null,
      "F0ABC124",
      { id: "F0ABC123", name: "again.png" },
      { id: "F0ABC125", title: "Voice note", mimetype: "audio/webm" },
    ]);
    expect(refs).toEqual([
      { id: "F0ABC123", name: "error.png", mimetype: "image/png", size: 10 },
      { id: "F0ABC125", name: "Voice note", mimetype: "audio/webm" },
    ]);
    expect(
      fileRefsOf(Array.from({ length: 15 }, (_, i) => ({ id: `F0ABC${100 + i}`, name: "f" }))),
    ).toHaveLength(10);
    expect(fileRefsOf("F0ABC123")).toEqual([]);
  });

  it("says each refusal as a sentence that names the file and what would fix it", () => {
    expect(slackFileSentence("plan.pdf", new SlackFileError("missing_scope"))).toMatch(
      /"plan\.pdf".*files:read.*reinstall/,
    );
    expect(slackFileSentence("plan.pdf", new SlackFileError("not_shared_here"))).toMatch(
      /not shared in this conversation/,
    );
    expect(slackFileSentence("plan.pdf", new Error("boom"))).toMatch(/couldn't download "plan\.pdf"/);
  });
});
