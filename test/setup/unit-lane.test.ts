import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { importsIn, startsIn, startsOf, unitLane } from "./unit-lane.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));

describe("the unit lane: files that start nothing, read from their imports", () => {
  it("counts every helper that opens a database, starts a process or a server, or drives a browser", () => {
    const starters = [
      "pg.ts",
      "pglite-template.ts",
      "redis.ts",
      "redis-queue.ts",
      "hermes-harness.ts",
      "hermes-process.ts",
      "hermes-worker-process.ts",
      "hermes-cluster.ts",
      "streaming-hermes.ts",
      "npm-start.ts",
      "child-process.ts",
      "chromium.ts",
      "scripted-model.ts",
      "model-server-families.ts",
      "bolt-app.ts",
      "slack.ts",
      "slack-thread.ts",
      "approvals.ts",
      "tcp-proxy.ts",
    ];
    for (const helper of starters) {
      expect(startsOf(`${root}test/helpers/${helper}`, root), helper).not.toEqual([]);
    }
    // …and none of the in-memory ones, which many pure files use.
    for (const helper of ["runtime.ts", "sse-completion.ts", "trace-capture.ts", "start-command.ts"]) {
      expect(startsOf(`${root}test/helpers/${helper}`, root), helper).toEqual([]);
    }
  });

  const fixtures = new Map(
    readFileSync(new URL("unit-lane-fixtures.txt", import.meta.url), "utf8")
      .split(/^--- /m)
      .slice(1)
      .map((section) => [section.slice(0, section.indexOf("\n")), section.slice(section.indexOf("\n") + 1)]),
  );
  const fixture = (name: string) => fixtures.get(name) ?? expect.fail(`no fixture "${name}"`);

  it("reads static, dynamic and re-exported imports, and not erased type imports", () => {
    expect(importsIn(fixture("value imports, type imports erased"))).toEqual([
      { specifier: "node:http", names: ["request"] },
      { specifier: "./side-effect.ts", names: [] },
      { specifier: "./all.ts", names: "all" },
      { specifier: "node:net", names: "all" },
    ]);
  });

  it("tells a server or a database from a client of one", () => {
    expect(startsIn(fixture("a client of node:http"))).toEqual([]);
    expect(startsIn(fixture("a server of node:http"))).toEqual(["node:http", "calls createServer"]);
    expect(startsIn(fixture("a server from a dynamic import"))).toEqual(["node:net", "calls createServer"]);
    expect(startsIn('import { type Server, request } from "node:http";')).toEqual([]);
    expect(startsIn('import { createServer } from "node:net";')).toEqual(["node:net"]);
    expect(startsIn('import pg from "pg";')).toEqual(["pg"]);
    expect(startsIn('import { PGlite } from "@electric-sql/pglite/vector";')).toEqual([
      "@electric-sql/pglite/vector",
    ]);
    expect(startsIn('import { spawn } from "child_process";')).toEqual(["child_process"]);
    expect(startsIn('import { verifySlackRequest } from "@slack/bolt";')).toEqual([]);
    expect(startsIn('import { App } from "@slack/bolt";')).toEqual(["@slack/bolt"]);
  });

  it("splits every file npm test collects, and keeps the process and database files out", () => {
    const { pure, impure } = unitLane(root);
    expect(pure.length).toBeGreaterThan(0);
    expect(new Set([...pure, ...impure]).size).toBe(pure.length + impure.length);
    for (const file of [
      "test/store/migrate.test.ts",
      "test/e2e/slack-app.test.ts",
      "test/http/http-fetch.test.ts",
    ]) {
      expect(impure, file).toContain(file);
    }
    expect(pure).toContain("test/setup/unit-lane.test.ts");
    expect(impure).toContain("test/setup/unit-lane-guard.test.ts");
  });
});
