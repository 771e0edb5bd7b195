import { existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import {
  PROCESS_CEILING_MS,
  PROCESS_TEST_TIMEOUT_MS,
  runProcess,
  startProcess,
} from "../helpers/child-process.ts";
import { productionEnv, tempDir } from "../helpers/hermes-process.ts";
import { freePort } from "../helpers/npm-start.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/pg.ts";
import { connectTestRedis, deleteKeysWithPrefix, testRedisUrl } from "../helpers/redis.ts";
import { startSlackEmulator } from "../helpers/slack.ts";
import { BUNDLED_NODE_PATHS, RUNTIME_CMD } from "./dockerfile-rules.ts";
import { layOutRuntimeCopy, nodeEnv, type RuntimeCopy } from "./runtime-copy.ts";

const root = join(import.meta.dirname, "..", "..");

/**
 * No Docker daemon here, so the image's runtime stage runs as a folder: exactly what the Dockerfile
 * copies (read from the Dockerfile), production node_modules, the stage's ENV, its CMD and its
 * HEALTHCHECK command. What the image adds around that (tini, the node user) the Dockerfile test checks.
 */
describe("the image's runtime stage, run from a copy of what it holds", () => {
  let app: RuntimeCopy;
  const dirs: Array<ReturnType<typeof tempDir>> = [];

  beforeAll(async () => {
    app = await layOutRuntimeCopy(root, readFileSync(join(root, "Dockerfile"), "utf8"));
    console.log(
      `production node_modules (copy + npm prune --omit=dev): ${(app.nodeModulesMs / 1000).toFixed(1)} s`,
    );
  }, PROCESS_TEST_TIMEOUT_MS);
  afterAll(() => {
    app?.remove();
    for (const dir of dirs) dir.remove();
  });

  /** The container's environment: the image's ENV, then what `docker run -e` would give. */
  const containerEnv = (extra: Record<string, string>) => ({ ...nodeEnv(), ...app.env, ...extra });
  const run = (command: string[], env: Record<string, string>) =>
    runProcess(command[0] === "node" ? process.execPath : command[0]!, command.slice(1), {
      cwd: app.appDir,
      env,
    });
  const start = (args: string[], env: Record<string, string>) =>
    startProcess(process.execPath, [...app.cmd.slice(1), ...args], { cwd: app.appDir, env });
  const healthOf = async (port: number) => {
    const r = await fetch(`http://127.0.0.1:${port}/healthz`);
    return { status: r.status, body: (await r.json()) as Record<string, unknown> };
  };

  it("holds only the copied paths, and node_modules without dev dependencies", () => {
    expect(app.cmd).toEqual(RUNTIME_CMD);
    expect(readdirSync(app.appDir).sort()).toEqual([
      "drizzle",
      "manifest.yml",
      "node_modules",
      "package.json",
      "src",
    ]);
    const modules = join(app.appDir, "node_modules");
    for (const dep of ["bullmq", "pg", "@electric-sql/pglite", "@slack/bolt"])
      expect(existsSync(join(modules, dep)), dep).toBe(true);
    for (const dev of ["vitest", "typescript", "@biomejs/biome", "drizzle-kit", "@openai/agents", "tsx"])
      expect(existsSync(join(modules, dev)), dev).toBe(false);
    // The image runs its base image's Node: not the registry's binary npm ci installs for npm scripts.
    // (lstat: a link whose target is gone still counts.)
    for (const path of BUNDLED_NODE_PATHS)
      expect(() => lstatSync(join(app.appDir, path)), path).toThrow(/ENOENT/);
  });

  it(
    "embedded default: `npm run db:migrate`, then CMD serves /healthz, the HEALTHCHECK passes, SIGTERM exits 0",
    async () => {
      const data = tempDir("image-data");
      dirs.push(data);
      const port = await freePort();
      const env = containerEnv({ HERMES_DATA_DIR: data.path, PORT: String(port), HERMES_LOG_LEVEL: "warn" });

      const migrated = await runProcess("npm", ["run", "--silent", "db:migrate"], { cwd: app.appDir, env });
      expect(migrated.stdout + migrated.stderr).toMatch(/PGlite .*: applied \d+ migration\(s\)/);
      expect(migrated.code).toBe(0);

      const hermes = start([], env);
      try {
        await hermes.until(
          async () => (await healthOf(port)).status === 200,
          "/healthz 200",
          PROCESS_CEILING_MS,
        );
        expect((await healthOf(port)).body).toMatchObject({
          ok: true,
          db: "pglite:ok",
          redis: "in-process",
          queue: "running",
        });
        expect(hermes.output()).toMatch(/Hermes is running: sandbox workspace/);
        expect((await run(app.healthcheck, env)).code).toBe(0);

        hermes.signal("SIGTERM");
        expect(await hermes.exited).toMatchObject({ code: 0 });
        expect((await run(app.healthcheck, env)).code).toBe(1);
      } finally {
        await hermes.stop();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  describe("on Postgres and Redis", () => {
    let db: TestDatabase;
    let emulator: SlackApiEmulator;
    const redisPrefix = `img${Math.random().toString(36).slice(2, 10)}`;
    beforeAll(async () => {
      db = await createTestDatabase();
      emulator = await startSlackEmulator();
    });
    afterAll(async () => {
      await emulator?.stop();
      await db?.drop();
      const redis = connectTestRedis();
      await deleteKeysWithPrefix(redis, `${redisPrefix}:`).finally(() => redis.disconnect());
    });

    it(
      "a worker and a receiver: each one's /healthz and HEALTHCHECK, and a clean exit on SIGTERM",
      async () => {
        const data = tempDir("image-split");
        dirs.push(data);
        const shared = productionEnv({
          slackApiUrl: emulator.url,
          signingSecret: "image-test-secret",
          databaseUrl: db.url,
          redisUrl: testRedisUrl,
          redisPrefix,
          dataDir: data.path,
          extra: { HERMES_LOG_LEVEL: "warn" },
        });
        const migrated = await runProcess("npm", ["run", "--silent", "db:migrate"], {
          cwd: app.appDir,
          env: containerEnv(shared),
        });
        expect(migrated.stdout).toMatch(/Postgres: applied \d+ migration\(s\)/);

        const [workerPort, receiverPort] = [await freePort(), await freePort()];
        const workerEnv = containerEnv({ ...shared, PORT: String(workerPort) });
        const receiverEnv = containerEnv({ ...shared, PORT: String(receiverPort) });
        const worker = start(["--worker"], workerEnv);
        const receiver = start(["--receiver"], receiverEnv);
        try {
          await worker.until(async () => (await healthOf(workerPort)).status === 200, "worker /healthz 200");
          await receiver.until(
            async () => (await healthOf(receiverPort)).status === 200,
            "receiver /healthz 200",
          );
          expect((await healthOf(workerPort)).body).toMatchObject({
            ok: true,
            db: "postgres:ok",
            redis: "ok",
            queue: "running",
          });
          expect((await healthOf(receiverPort)).body).toMatchObject({
            ok: true,
            db: "postgres:ok",
            redis: "ok",
            queue: "enqueue-only",
          });
          expect((await run(app.healthcheck, workerEnv)).code).toBe(0);
          expect((await run(app.healthcheck, receiverEnv)).code).toBe(0);

          worker.signal("SIGTERM");
          receiver.signal("SIGTERM");
          expect(await worker.exited).toMatchObject({ code: 0 });
          expect(await receiver.exited).toMatchObject({ code: 0 });
        } finally {
          await worker.stop();
          await receiver.stop();
        }
      },
      PROCESS_TEST_TIMEOUT_MS,
    );
  });
});
