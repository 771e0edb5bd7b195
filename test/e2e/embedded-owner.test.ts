import { readFileSync } from "node:fs";
import { request } from "node:http";
import { networkInterfaces, userInfo } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { createEventsSender } from "../../src/sandbox/events-sender.ts";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import { createAuditLog } from "../../src/store/audit.ts";
import type { LockHolder } from "../../src/store/data-dir-lock.ts";
import { openDatabase } from "../../src/store/db.ts";
import { PROCESS_TEST_TIMEOUT_MS, runProcess, startProcess } from "../helpers/child-process.ts";
import { waitFor } from "../helpers/hermes-harness.ts";
import { type HermesProcess, startHermesProcess, tempDir } from "../helpers/hermes-process.ts";
import { startSlackEmulator } from "../helpers/slack.ts";
import { NO_ENV_FILE, npmStartFlags } from "../helpers/start-command.ts";

const CHANNEL = "C0OPS";
const SIGNING_SECRET = "embedded-owner-signing-secret";
const TIMEOUT = { timeout: PROCESS_TEST_TIMEOUT_MS };

/**
 * The embedded default (no DATABASE_URL: PGlite under HERMES_DATA_DIR) has exactly one owner process.
 * Real processes on one data dir: a second server refuses with one sentence naming the first; the
 * CLIs run through the running server (fresh rows, their `audit.queried` row in its chain); a
 * `kill -9`'d owner's lock is taken over by the next start; the admin endpoint takes only loopback
 * requests that name it and carry the lock's token.
 */
describe("embedded default: one process owns the data dir", () => {
  let emulator: SlackApiEmulator;
  let dir: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  let owner: HermesProcess | undefined;
  const lock = () => JSON.parse(readFileSync(join(dir.path, "owner.lock"), "utf8")) as LockHolder;
  const plainEnv = () => ({
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    HERMES_DATA_DIR: dir.path,
    HERMES_LOG_LEVEL: "warn",
  });
  const cli = async (script: "runs" | "audit", args: string[]) => {
    const r = await runProcess(process.execPath, [`src/cli/${script}.ts`, ...args], { env: plainEnv() });
    return { ...r, all: `${r.stdout}${r.stderr}` };
  };

  beforeAll(async () => {
    emulator = await startSlackEmulator();
    dir = tempDir("embedded-owner");
    // HTTP mode against the emulator, no model (command mode), no DATABASE_URL: the embedded store.
    env = {
      SLACK_BOT_TOKEN: "xoxb-test",
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: emulator.url,
      HERMES_DATA_DIR: dir.path,
      HERMES_ADMINS: "U0ADMIN",
      HERMES_STREAMING: "off",
    };
    owner = await startHermesProcess(env);
  }, PROCESS_TEST_TIMEOUT_MS);
  afterAll(async () => {
    await owner?.kill9();
    await emulator?.stop();
    dir?.remove();
  });

  it(
    "a second server on the same data refuses with one sentence naming the first; the first keeps working",
    TIMEOUT,
    async () => {
      const sentence = `Another Hermes (pid ${owner!.pid}, http://127.0.0.1:${owner!.port}) already owns the embedded data in ${dir.path}; stop it first or set HERMES_DATA_DIR to another folder.`;
      const second = startProcess(process.execPath, [...npmStartFlags(), "src/main.ts"], {
        env: { ...plainEnv(), ...NO_ENV_FILE, ...env, PORT: "0" },
      });
      try {
        // Either it exits, or it runs beside the first (the failure this guards against): no waiting out a ceiling.
        await Promise.race([
          second.exited,
          second.waitForOutput(/Hermes is running/, "a second server").catch(() => undefined),
        ]);
        expect(second.hasExited(), second.output()).toBe(true);
        expect((await second.exited).code).not.toBe(0);
        expect(second.stderr().trim()).toBe(sentence);
        expect(second.stdout()).not.toContain("Hermes is running");
      } finally {
        await second.stop();
      }
      // A migration beside it refuses too (the server migrated when it started).
      const migrate = await runProcess(process.execPath, ["src/cli/migrate.ts"], { env: plainEnv() });
      expect(migrate.code).not.toBe(0);
      expect(migrate.stderr.trim()).toBe(sentence);
      expect((await fetch(`${owner!.origin}/healthz`)).status).toBe(200);
      expect(lock()).toMatchObject({ pid: owner!.pid, url: `http://127.0.0.1:${owner!.port}` });
    },
  );

  it(
    "`npm run runs` and `npm run audit` while it runs see its rows at once; their read is in its chain",
    TIMEOUT,
    async () => {
      const sender = createEventsSender({
        url: `${owner!.origin}/slack/events`,
        signingSecret: SIGNING_SECRET,
        slack: emulator,
      });
      const d = await sender.appMention({
        user: "U0USER1",
        channel: CHANNEL,
        text: "<@U0HERMES> run get_current_time",
      });
      expect(d.status).toBe(200);
      const ts = d.message!.ts;
      await waitFor(
        () =>
          (emulator.workspace.replies(CHANNEL, ts) ?? []).find(
            (m) => m.user === "U0HERMES" && m.ts !== ts && !m.text.includes("working"),
          ),
        120_000,
        "the turn's answer",
      );

      const runs = await cli("runs", ["list", "--json"]);
      expect(runs.code, runs.all).toBe(0);
      const listed = JSON.parse(runs.stdout) as Array<{ runId: string; requestText: string | null }>;
      expect(listed.map((r) => r.requestText)).toContainEqual(expect.stringContaining("get_current_time"));
      const shown = await cli("runs", ["show", listed[0]!.runId]);
      expect(shown.code, shown.all).toBe(0);
      expect(shown.stdout).toContain("get_current_time");

      const query = await cli("audit", ["query", "--tool", "get_current_time", "--format", "json"]);
      expect(query.code, query.all).toBe(0);
      const rows = (JSON.parse(query.stdout) as { rows: Array<{ action: string }> }).rows;
      expect(rows.map((r) => r.action)).toEqual(expect.arrayContaining(["tool.requested", "tool.executed"]));

      // The read itself went into the server's chain: the next read (recorded before it reads) sees
      // both, and the chain still verifies.
      const reads = await cli("audit", ["query", "--action", "queried", "--format", "json"]);
      const queried = (
        JSON.parse(reads.stdout) as { rows: Array<{ tool: string; args: Record<string, unknown> }> }
      ).rows;
      expect(queried).toHaveLength(2);
      expect(queried).toContainEqual(
        expect.objectContaining({
          tool: "npm run audit",
          args: expect.objectContaining({ tool: "get_current_time", osUser: userInfo().username }),
        }),
      );
      const verify = await cli("audit", ["verify"]);
      expect(verify.code, verify.all).toBe(0);
      expect(verify.stdout).toMatch(/^audit chain ok: \d+ rows/);
      const head = await cli("audit", ["head", "--format", "json"]);
      expect(head.code, head.all).toBe(0);

      // After the server stops, the rows are in its database, chained.
      await owner!.stop();
      owner = undefined;
      const handle = await openDatabase({ dataDir: dir.path, logger: silentLogger() });
      try {
        const audit = createAuditLog({ db: handle.db });
        const after = await audit.query({ action: "audit.queried", limit: 10 });
        expect(after.rows).toHaveLength(2);
        expect(await audit.verify()).toMatchObject({
          ok: true,
          head: (JSON.parse(head.stdout) as { hash: string }).hash,
        });
      } finally {
        await handle.close();
      }
      // With no server, a CLI opens the data itself (and lets go of it).
      const alone = await cli("runs", ["list"]);
      expect(alone.code, alone.all).toBe(0);
      expect(alone.stdout).toContain("get_current_time");
      owner = await startHermesProcess(env);
    },
  );

  it(
    "the admin endpoint refuses a wrong or missing token, a foreign Host, a browser and a non-loopback address",
    TIMEOUT,
    async () => {
      owner ??= await startHermesProcess(env);
      const { token, url } = lock();
      expect(url).toBe(`http://127.0.0.1:${owner!.port}`);
      const body = JSON.stringify({ cli: "runs", argv: ["list"], osUser: null });
      const post = (headers: Record<string, string>, host = "127.0.0.1") =>
        send({ host, port: owner!.port, path: "/_hermes/cli", headers, body });
      expect((await post({})).status).toBe(401);
      expect((await post({ authorization: "Bearer wrong-token" })).status).toBe(401);
      expect((await post({ authorization: `bearer ${token}x` })).status).toBe(401);
      const foreign = await post({ authorization: `Bearer ${token}`, host: `evil.example:${owner!.port}` });
      expect(foreign.status).toBe(403);
      const browser = await post({ authorization: `Bearer ${token}`, origin: "http://evil.example" });
      expect(browser.status).toBe(403);
      const ok = await post({ authorization: `Bearer ${token}` });
      expect(ok.status, ok.text).toBe(200);
      expect(JSON.parse(ok.text)).toMatchObject({ code: 0 });
      // The server listens on every interface (HTTP mode): from this machine's own non-loopback address.
      const external = Object.values(networkInterfaces())
        .flat()
        .find((a) => a && a.family === "IPv4" && !a.internal)?.address;
      if (external) {
        const remote = await post(
          { authorization: `Bearer ${token}`, host: `127.0.0.1:${owner!.port}` },
          external,
        );
        expect(remote.status).toBe(403);
        expect(remote.text).toContain("only from this machine");
      }
    },
  );

  it("kill -9 of the owner leaves its lock; the next start takes it over", TIMEOUT, async () => {
    owner ??= await startHermesProcess(env);
    const killed = owner;
    await killed.kill9();
    owner = undefined;
    expect(lock().pid).toBe(killed.pid);
    owner = await startHermesProcess(env);
    expect(lock()).toMatchObject({ pid: owner.pid, url: `http://127.0.0.1:${owner.port}` });
    const runs = await cli("runs", ["list"]);
    expect(runs.code, runs.all).toBe(0);
    expect(runs.stdout).toContain("get_current_time");
  });
});

/** A raw HTTP request (fetch may not set `Host`). */
function send(o: {
  host: string;
  port: number;
  path: string;
  headers: Record<string, string>;
  body: string;
}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: o.host,
        port: o.port,
        path: o.path,
        method: "POST",
        headers: { "content-type": "application/json", ...o.headers },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => {
          text += d;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.once("error", reject);
    req.end(o.body);
  });
}
