import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROCESS_TEST_TIMEOUT_MS, runProcess, startProcess } from "../helpers/child-process.ts";
import { baseEnv, freePort } from "../helpers/npm-start.ts";
import { answer, ScriptedModelServer } from "../helpers/scripted-model.ts";

const PRELOAD = join(import.meta.dirname, "..", "..", "src", "boot", "env-file.mjs");

/** The environment a `node --import env-file.mjs` child sees for `names`, as JSON. */
const SHOW = (names: string[]) =>
  `console.log(JSON.stringify(${JSON.stringify(names)}.map((n) => process.env[n] ?? null)))`;

describe("the .env file npm start and the CLIs read (src/boot/env-file.mjs)", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "hermes-env-file-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads .env of the working directory; a variable already set wins; no file is no error", async () => {
    const withFile = mkdtempSync(join(dir, "with-"));
    writeFileSync(join(withFile, ".env"), "HERMES_LOG_LEVEL=debug\nPORT=4111\n");
    const env = { PATH: process.env.PATH ?? "", PORT: "5222" };
    const read = await runProcess(
      process.execPath,
      ["--import", PRELOAD, "-e", SHOW(["HERMES_LOG_LEVEL", "PORT"])],
      {
        cwd: withFile,
        env,
      },
    );
    expect(read.code, read.stderr).toBe(0);
    expect(JSON.parse(read.stdout)).toEqual(["debug", "5222"]);

    const none = mkdtempSync(join(dir, "none-"));
    const without = await runProcess(
      process.execPath,
      ["--import", PRELOAD, "-e", SHOW(["HERMES_LOG_LEVEL"])],
      {
        cwd: none,
        env,
      },
    );
    expect(without.code, without.stderr).toBe(0);
    expect(JSON.parse(without.stdout)).toEqual([null]);
  });

  it("reads the file HERMES_ENV_FILE names instead, and refuses one that is not there", async () => {
    const file = join(dir, "named.env");
    writeFileSync(file, "HERMES_MODEL=from-file\n");
    const cwd = mkdtempSync(join(dir, "cwd-"));
    writeFileSync(join(cwd, ".env"), "HERMES_MODEL=from-dot-env\n");
    const env = { PATH: process.env.PATH ?? "", HERMES_ENV_FILE: file };
    const read = await runProcess(process.execPath, ["--import", PRELOAD, "-e", SHOW(["HERMES_MODEL"])], {
      cwd,
      env,
    });
    expect(JSON.parse(read.stdout)).toEqual(["from-file"]);

    const missing = await runProcess(process.execPath, ["--import", PRELOAD, "-e", "console.log('ran')"], {
      cwd,
      env: { ...env, HERMES_ENV_FILE: join(dir, "nope.env") },
    });
    expect(missing.code).toBe(2);
    expect(missing.stdout).not.toContain("ran");
    expect(missing.stderr).toContain(`HERMES_ENV_FILE=${join(dir, "nope.env")} cannot be read (ENOENT)`);
  });

  it("npm start takes PORT from the file; a variable set explicitly wins over it", {
    timeout: PROCESS_TEST_TIMEOUT_MS,
  }, async () => {
    const port = await freePort();
    const file = join(dir, "start.env");
    const dataDir = mkdtempSync(join(dir, "data-"));
    // Were the file to win, HERMES_MAX_STEPS would stop start-up as invalid.
    writeFileSync(
      file,
      `PORT=${port}\nHERMES_DATA_DIR=${dataDir}\nHERMES_LOG_LEVEL=warn\nHERMES_MAX_STEPS=many\n`,
    );
    const app = startProcess("npm", ["start"], {
      env: { ...baseEnv(), HERMES_ENV_FILE: file, HERMES_MAX_STEPS: "7" },
    });
    try {
      await app.until(
        async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok,
        "npm start: /healthz",
      );
    } finally {
      await app.stop();
    }
  });

  it("npm run agent reads its model from the file; one given explicitly wins", {
    timeout: PROCESS_TEST_TIMEOUT_MS,
  }, async () => {
    const server = new ScriptedModelServer();
    await server.start();
    try {
      server.enqueue(answer("Hello from the scripted model."));
      const file = join(dir, "agent.env");
      writeFileSync(
        file,
        `OPENAI_BASE_URL=${server.baseURL}\nHERMES_MODEL=from-file\nHERMES_DATA_DIR=${dir}/agent\n`,
      );
      const r = await runProcess("npm", ["run", "--silent", "agent", "--", "hello"], {
        env: { ...baseEnv(), HERMES_ENV_FILE: file, HERMES_MODEL: "explicit" },
      });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toContain(`model explicit at ${server.baseURL}`);
      expect(r.stdout).toContain("Hello from the scripted model.");
    } finally {
      await server.stop();
    }
  });
});
