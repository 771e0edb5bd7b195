import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROCESS_TEST_TIMEOUT_MS, runProcess } from "../helpers/child-process.ts";
import { answer, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";

const MODEL_KEY = "corp-model-key-7f3a9c1e55d2";

/** `npm run agent -- …` as its own process (group), killed afterwards whatever happened. */
async function agent(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const r = await runProcess(process.execPath, ["src/cli/agent.ts", ...args], { env });
  return { ...r, all: r.stdout + r.stderr };
}

describe("npm run agent (CLI) and --replay", () => {
  const server = new ScriptedModelServer();
  beforeAll(() => server.start());
  afterAll(() => server.stop());

  it("runs one turn with get_current_time, prints each step and the answer, and replays the trace", {
    timeout: PROCESS_TEST_TIMEOUT_MS,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "hermes-cli-"));
    try {
      const trace = join(dir, "trace.jsonl");
      server.enqueue(
        { status: 500 },
        // A wrong time zone that holds the key: the tool's error (with it) goes to the trace.
        toolCalls([{ name: "get_current_time", args: { timezone: `Mars/${MODEL_KEY}`, extra: 1 } }]),
        toolCalls([{ name: "get_current_time", args: "{'timezone': 'Europe/Berlin'}" }]),
        answer(`It is morning in Berlin. Mail me at bob@example.com; the key is ${MODEL_KEY}`),
      );
      const turn = await agent(["What time is it in Berlin?", "--trace", trace], {
        ...process.env,
        OPENAI_BASE_URL: server.baseURL,
        HERMES_MODEL: "scripted",
        OPENAI_API_KEY: MODEL_KEY,
        HERMES_MODEL_MAX_RETRIES: "2",
      });
      expect(turn.code, turn.all).toBe(0);
      const { stdout } = turn;
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
      // The configured key, by exact value (it matches no token pattern).
      expect(readFileSync(trace, "utf8")).not.toContain(MODEL_KEY);

      const replay = await agent(["--replay", trace]);
      expect(replay.code, replay.all).toBe(0);
      expect(replay.stdout).toContain("── run ");
      expect(replay.stdout).toMatch(
        /step {2}1 {2}⇄ model scripted \(2 messages, \d+ tools, ~\d+ history tokens\) → calls get_current_time/,
      );
      expect(replay.stdout).toContain("dropped from get_current_time: extra");
      expect(replay.stdout).toContain("── completed after 3 steps, 3 model calls");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("explains how to configure a model when none is set", { timeout: PROCESS_TEST_TIMEOUT_MS }, async () => {
    const r = await agent(["hello"], { PATH: process.env.PATH, HOME: process.env.HOME });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("OPENAI_BASE_URL=http://localhost:11434/v1");
  });
});
