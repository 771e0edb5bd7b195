import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answer, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";

const run = promisify(execFile);
const tsx = join(process.cwd(), "node_modules/.bin/tsx");

describe("npm run agent (CLI) and --replay", () => {
  const server = new ScriptedModelServer();
  beforeAll(() => server.start());
  afterAll(() => server.stop());

  it("runs one turn with get_current_time, prints each step and the answer, and replays the trace", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hermes-cli-"));
    const trace = join(dir, "trace.jsonl");
    server.enqueue(
      { status: 500 },
      toolCalls([{ name: "get_current_time", args: { timezone: "europe/berlin", extra: 1 } }]),
      toolCalls([{ name: "get_current_time", args: "{'timezone': 'Europe/Berlin'}" }]),
      answer("It is morning in Berlin. Mail me at bob@example.com"),
    );
    const { stdout } = await run(tsx, ["src/cli/agent.ts", "What time is it in Berlin?", "--trace", trace], {
      env: {
        ...process.env,
        OPENAI_BASE_URL: server.baseURL,
        HERMES_MODEL: "scripted",
        OPENAI_API_KEY: "k",
        HERMES_MODEL_MAX_RETRIES: "2",
      },
    });
    expect(stdout).toContain("↻ model retry 1 after 500");
    expect(stdout).toContain("dropped from get_current_time: extra");
    expect(stdout).toContain("repaired get_current_time arguments: json_repair");
    expect(stdout).toContain("✓ get_current_time");
    expect(stdout).toContain("It is morning in Berlin.");
    expect(stdout).toMatch(/\(completed; 3 steps, 3 model calls/);

    const lines = readFileSync(trace, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    for (const l of lines) {
      expect(l).toHaveProperty("runId");
      expect(l).toHaveProperty("sessionKey");
      expect(l).toHaveProperty("step");
    }
    expect(readFileSync(trace, "utf8")).not.toContain("bob@example.com");

    const replay = await run(tsx, ["src/cli/agent.ts", "--replay", trace]);
    expect(replay.stdout).toContain("── run ");
    expect(replay.stdout).toMatch(
      /step {2}1 {2}⇄ model scripted \(2 messages, 2 tools, ~\d+ history tokens\) → calls get_current_time/,
    );
    expect(replay.stdout).toContain("dropped from get_current_time: extra");
    expect(replay.stdout).toContain("── completed after 3 steps, 3 model calls");
  }, 60_000);

  it("explains how to configure a model when none is set", async () => {
    const err = await run(tsx, ["src/cli/agent.ts", "hello"], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    }).catch((e: { code: number; stderr: string }) => e);
    expect((err as { code: number }).code).toBe(1);
    expect((err as { stderr: string }).stderr).toContain("OPENAI_BASE_URL=http://localhost:11434/v1");
  }, 30_000);
});
