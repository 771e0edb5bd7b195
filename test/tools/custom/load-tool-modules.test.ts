import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lookupHost } from "../../../examples/tools/lookup-host.ts";
import { HermesError } from "../../../src/core/errors.ts";
import { silentLogger } from "../../../src/core/logger.ts";
import { loadToolModules } from "../../../src/tools/custom/load-tool-modules.ts";
import { namedSources } from "../../../src/tools/custom/tool-names.ts";
import { getCurrentTime } from "../../../src/tools/get-current-time.ts";
import { ToolRegistry } from "../../../src/tools/registry.ts";
import { createMemoryResultStore } from "../../../src/tools/result-store.ts";

const root = resolve(import.meta.dirname, "../../..");
const FIXTURES = "test/tools/custom/fixtures";
const EXAMPLE = "examples/tools/lookup-host.ts";

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "hermes-tools-"));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function module(name: string, source: string): Promise<string> {
  const file = join(tmp, name);
  await writeFile(file, source);
  return file;
}

async function loadError(spec: string, taken = namedSources([getCurrentTime()], "built-in")) {
  const err = await loadToolModules(spec, { cwd: root, taken }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HermesError);
  expect((err as HermesError).code).toBe("config_invalid");
  return (err as HermesError).message;
}

describe("loadToolModules", () => {
  it("loads the example module, and the tool runs through the registry", async () => {
    const tools = await loadToolModules(EXAMPLE, { cwd: root });
    expect(tools.map((t) => t.name)).toEqual(["lookup_host"]);
    const [tool] = tools;
    expect(tool?.level).toBe("viewer");
    expect(tool?.description).toBe(lookupHost.description);

    const registry = new ToolRegistry({ results: createMemoryResultStore(), logger: silentLogger() });
    registry.register(getCurrentTime(), ...tools);
    const prepared = registry.prepare({ id: "c1", name: "lookup_host", arguments: '{"host":"localhost"}' });
    expect(prepared.ok).toBe(true);
    if (!prepared.ok) return;
    const result = await registry.execute(prepared.tool, prepared.args, {
      run: { runId: "r1", sessionKey: "T:C:1", userId: "U1" },
      callId: "c1",
      signal: new AbortController().signal,
      logger: silentLogger(),
    });
    expect(result.ok).toBe(true);
    expect(result.content).toMatch(/"address":"(127\.0\.0\.1|::1)"/);
  });

  it("collects named exports and default arrays from several modules, skipping non-tools", async () => {
    const tools = await loadToolModules(` ${EXAMPLE} , ${FIXTURES}/ticket-links.ts `, { cwd: root });
    expect(tools.map((t) => t.name)).toEqual(["lookup_host", "ticket_link", "ticket_count_link"]);
    const countLink = tools.find((t) => t.name === "ticket_count_link");
    // defaults from defineTool
    expect(countLink).toMatchObject({ level: "user", approval: "never", timeoutMs: 15_000 });
  });

  it("a module with a syntax error stops start-up naming the file", async () => {
    const file = await module("broken.ts", "export const tool = { name: 'x', \n  description: ;\n");
    const message = await loadError(file);
    expect(message).toContain(`HERMES_TOOLS module ${file}: could not be imported`);
  });

  it("a module that throws while importing stops start-up with its message", async () => {
    const file = await module("throws.js", 'throw new Error("CMDB_URL is not set");\n');
    const message = await loadError(file);
    expect(message).toContain(file);
    expect(message).toContain("CMDB_URL is not set");
  });

  it("a module without tools, an invalid tool, or a missing file is a clear error", async () => {
    const none = await module("none.js", "export const answer = 42;\n");
    expect(await loadError(none)).toContain("exports no tools");

    const badName = await module(
      "bad-name.js",
      'export const t = { name: "Lookup Host", description: "d", input: {}, execute() {} };\n',
    );
    expect(await loadError(badName)).toMatch(/export "t": tool "Lookup Host": name must be snake_case/);

    const noSchema = await module(
      "no-schema.js",
      'export default [{ name: "lookup", description: "d", input: { type: "object" }, execute() {} }];\n',
    );
    expect(await loadError(noSchema)).toMatch(
      /default export \[0\]: tool "lookup": input must be a zod object/,
    );

    expect(await loadError("tools/nope.ts")).toContain("HERMES_TOOLS module tools/nope.ts: file not found");
  });

  it("a name used twice names both sources", async () => {
    const message = await loadError(`${EXAMPLE},${FIXTURES}/clash-lookup-host.ts`);
    expect(message).toBe(
      `Two tools are named "lookup_host": one from ${EXAMPLE}, one from ${FIXTURES}/clash-lookup-host.ts. Rename one of them.`,
    );
    const builtIn = await loadError(`${FIXTURES}/shadow-builtin.ts`);
    expect(builtIn).toContain(
      `Two tools are named "get_current_time": one from built-in, one from ${FIXTURES}/shadow-builtin.ts`,
    );
  });
});
