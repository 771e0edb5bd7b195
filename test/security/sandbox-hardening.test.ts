import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WebClient } from "@slack/web-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningHermes, startHermes } from "../../src/boot/start-hermes.ts";
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { signSlackRequest } from "../../src/sandbox/slack-signature.ts";
import { TEST_AUDIT_KEY } from "../helpers/hermes-harness.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/pg.ts";
import { quietSlackLogger, TINY_PNG } from "../helpers/slack.ts";

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw HTTP request to 127.0.0.1:port with any Host/Origin (fetch would not let us forge Host). */
function raw(
  port: number,
  o: { method?: string; path: string; host?: string; headers?: Record<string, string>; body?: string },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method: o.method ?? "GET",
        path: o.path,
        headers: { host: o.host ?? `127.0.0.1:${port}`, ...o.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(o.body);
  });
}

/**
 * The sandbox as `npm start` runs it (no Slack token: the Web API emulator, the page and the Bolt
 * receiver in one loopback server), probed as a hostile web page would: through DNS rebinding (a
 * foreign `Host`), cross-origin posts (a foreign `Origin`), and guessing file URLs.
 */
describe("sandbox: DNS rebinding, cross-origin posts and file URLs are refused", () => {
  let db: TestDatabase;
  let dataDir: string;
  let hermes: RunningHermes;
  let port: number;
  beforeAll(async () => {
    db = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), "hermes-sandbox-sec-"));
    const env = {
      PORT: "0",
      DATABASE_URL: db.url,
      HERMES_AUDIT_KEY: TEST_AUDIT_KEY,
      HERMES_DATA_DIR: dataDir,
      HERMES_LOG_LEVEL: "silent",
    };
    hermes = await startHermes({ config: loadConfig(env), logger: silentLogger(), rawEnv: env });
    port = hermes.port;
  }, 60_000);
  afterAll(async () => {
    await hermes?.stop();
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const postMessage = (o: { host?: string; origin?: string; text: string }) =>
    raw(port, {
      method: "POST",
      path: "/sandbox/api/messages",
      ...(o.host ? { host: o.host } : {}),
      headers: { "content-type": "application/json", ...(o.origin ? { origin: o.origin } : {}) },
      body: JSON.stringify({ as: "U0USER1", channel: "C0GENERAL", text: o.text }),
    });
  const said = (text: string) => hermes.sandbox!.workspace.history("C0GENERAL").some((m) => m.text === text);

  it("serves the loopback names with our port, and refuses any other Host (403, with the reason)", async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`]) {
      expect((await raw(port, { path: "/", host })).status, host).toBe(200);
    }
    for (const host of [
      "evil.example",
      `evil.example:${port}`,
      `127.0.0.1:${port + 1}`,
      "127.0.0.1",
      `localhost.evil.example:${port}`,
    ]) {
      const res = await raw(port, { path: "/", host });
      expect(res.status, host).toBe(403);
      expect(res.body).toMatch(/^Forbidden: Host ".*" is not this sandbox/);
      expect(res.headers["x-content-type-options"]).toBe("nosniff");
    }
  });

  it("a rebinding page can use no route: page API, Web API emulator, files, the bot's receiver", async () => {
    const host = `rebind.evil.example:${port}`;
    const before = hermes.sandbox!.emulator.calls.length;
    expect((await raw(port, { path: "/sandbox/api/state?as=U0ADMIN", host })).status).toBe(403);
    expect((await raw(port, { path: "/sandbox/api/audit?as=U0ADMIN", host })).status).toBe(403);
    expect((await postMessage({ host, text: "rebound hello" })).status).toBe(403);
    const api = await raw(port, {
      method: "POST",
      path: "/api/chat.postMessage",
      host,
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${hermes.sandbox!.botToken}`,
      },
      body: JSON.stringify({ channel: "C0GENERAL", text: "rebound bot" }),
    });
    expect(api.status).toBe(403);
    const body = JSON.stringify({ type: "url_verification", challenge: "x" });
    const events = await raw(port, {
      method: "POST",
      path: "/slack/events",
      host,
      headers: { "content-type": "application/json", ...signSlackRequest({ signingSecret: "guess", body }) },
      body,
    });
    expect(events.status).toBe(403);
    expect(hermes.sandbox!.emulator.calls.length).toBe(before);
    expect(said("rebound hello")).toBe(false);
  });

  it("refuses state-changing requests from a foreign Origin; our own origin and non-browser clients act", async () => {
    for (const origin of [
      "http://evil.example",
      "null",
      `http://127.0.0.1:${port + 1}`,
      `https://127.0.0.1:${port}`,
    ]) {
      const res = await postMessage({ origin, text: `from ${origin}` });
      expect(res.status, origin).toBe(403);
      expect(res.body).toContain("may not act in this sandbox");
      expect(said(`from ${origin}`)).toBe(false);
    }
    // A foreign Origin on a read is harmless (the browser keeps the answer from the page): served.
    expect(
      (await raw(port, { path: "/sandbox/api/people", headers: { origin: "http://evil.example" } })).status,
    ).toBe(200);
    expect((await postMessage({ origin: `http://localhost:${port}`, text: "same origin" })).status).toBe(200);
    expect((await postMessage({ text: "no origin" })).status).toBe(200);
    expect(said("same origin") && said("no origin")).toBe(true);
  });

  it("files: random ids; the emulator serves them with the bot token only, never as a page", async () => {
    const sandbox = hermes.sandbox!;
    const client = new WebClient(sandbox.botToken, {
      slackApiUrl: sandbox.slackApiUrl,
      retryConfig: { retries: 0 },
      logger: quietSlackLogger(),
    });
    const ids: string[] = [];
    const urls: string[] = [];
    for (const filename of ["a.png", "b.html"]) {
      const up = (await client.filesUploadV2({
        channel_id: "C0OPS",
        file: filename.endsWith(".png") ? TINY_PNG : Buffer.from("<script>alert(1)</script>"),
        filename,
      })) as unknown as { files: Array<{ files: Array<{ id: string; url_private: string }> }> };
      const f = up.files[0]!.files[0]!;
      ids.push(f.id);
      urls.push(f.url_private);
    }
    for (const id of ids) expect(id).toMatch(/^F[A-Z0-9]{10}$/);
    expect(ids[0]).not.toBe(ids[1]);
    // The ids the emulator used to hand out (F + a counter) find nothing.
    for (const guess of ["F000000001", "F000000002", "F0000000001"]) {
      const res = await raw(port, {
        path: `/files/${guess}/a.png`,
        headers: { authorization: `Bearer ${sandbox.botToken}` },
      });
      expect(res.status).toBe(404);
    }

    const path = (u: string) => new URL(u).pathname;
    expect((await raw(port, { path: path(urls[0]!) })).status).toBe(401);
    expect(
      (await raw(port, { path: path(urls[0]!), headers: { authorization: "Bearer xoxb-guess" } })).status,
    ).toBe(403);
    const auth = { authorization: `Bearer ${sandbox.botToken}` };
    const png = await raw(port, { path: path(urls[0]!), headers: auth });
    expect(png.status).toBe(200);
    expect(png.headers["content-type"]).toBe("image/png");
    expect(png.headers["x-content-type-options"]).toBe("nosniff");
    expect(png.headers["content-security-policy"]).toBe("sandbox; default-src 'none'");
    const html = await raw(port, { path: path(urls[1]!), headers: auth });
    expect(html.status).toBe(200);
    expect(html.headers["content-disposition"]).toMatch(/^attachment;/);
    expect(html.headers["content-security-policy"]).toBe("sandbox; default-src 'none'");

    // The page's own file route: a member (the page acts as `as`) gets it, with the same headers.
    const page = await raw(port, { path: `/sandbox/files/${ids[0]}/a.png?as=U0USER1` });
    expect(page.status).toBe(200);
    expect(page.headers["x-content-type-options"]).toBe("nosniff");
    expect(page.headers["content-security-policy"]).toContain("sandbox");
  });

  it("the page itself carries a restrictive CSP and nosniff", async () => {
    const res = await raw(port, { path: "/" });
    const csp = String(res.headers["content-security-policy"]);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'none'");
    expect(csp).not.toContain("unsafe-inline");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
  });
});
