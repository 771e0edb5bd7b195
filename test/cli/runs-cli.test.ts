import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROCESS_TEST_TIMEOUT_MS, runProcess } from "../helpers/child-process.ts";
import { execSql, openTestStore, type TestStore } from "../helpers/pg.ts";

/** `npm run runs -- …` as its own process against a Postgres database holding two runs. */
describe("npm run runs (CLI)", () => {
  let store: TestStore;
  const runs = async (args: string[]) => {
    const r = await runProcess(process.execPath, ["src/cli/runs.ts", ...args], {
      env: { ...process.env, DATABASE_URL: store.url!, HERMES_LOG_LEVEL: "silent" },
    });
    return { ...r, all: r.stdout + r.stderr };
  };

  beforeAll(async () => {
    store = await openTestStore("postgres");
    const db = store.handle.db;
    await execSql(
      db,
      `INSERT INTO runs (id, session_key, status, snapshot, user_id, channel_id, request_text, stop_reason, models,
         steps, model_calls, prompt_tokens, completion_tokens, cost_usd, model_ms, tool_ms, approval_wait_ms, own_ms,
         created_at, updated_at, finished_at) VALUES
        ('run_cli_ok', 'T1:C1:1.0', 'completed', '{}', 'U0USER1', 'C1', 'what time is it?', NULL, '{scripted}',
         2, 2, 200, 40, 0.00028, 300, 20, 0, 15, now() - interval '2 hours', now() - interval '2 hours', now() - interval '2 hours'),
        ('run_cli_failed', 'T1:C1:2.0', 'failed', '{}', 'U0OTHER', 'C1', 'hi', 'model_error', '{}',
         1, 0, 0, 0, 0, 100, 0, 0, 5, now(), now(), now())`,
    );
    await execSql(
      db,
      `INSERT INTO run_steps (run_id, seq, step, kind, name, status, started_at, duration_ms, prompt_tokens, completion_tokens, cost_usd, data) VALUES
        ('run_cli_ok', 1, 1, 'model', 'scripted', 'ok', now() - interval '2 hours', 150, 100, 20, 0.00014, '{"finishReason":"tool_calls","toolCalls":["get_current_time"]}'),
        ('run_cli_ok', 2, 1, 'tool', 'get_current_time', 'ok', now() - interval '2 hours', 20, NULL, NULL, NULL, '{"args":{},"policy":{"decision":"allow"},"resultPreview":"10:00"}'),
        ('run_cli_ok', 3, 2, 'model', 'scripted', 'ok', now() - interval '2 hours', 150, 100, 20, 0.00014, '{"finishReason":"stop"}')`,
    );
    await execSql(
      db,
      `INSERT INTO run_feedback (run_id, user_id, value) VALUES ('run_cli_ok', 'U0USER1', 'up')`,
    );
  }, 120_000);
  afterAll(() => store?.cleanup());

  it("show prints the run and its timeline; --json the same as data; an unknown id exits 1", {
    timeout: PROCESS_TEST_TIMEOUT_MS,
  }, async () => {
    const shown = await runs(["show", "run_cli_ok"]);
    expect(shown.code, shown.all).toBe(0);
    expect(shown.stdout).toContain("status    answered");
    expect(shown.stdout).toContain("request   what time is it?");
    expect(shown.stdout).toContain("2 steps, 2 model calls, 200 in / 40 out tokens, $0.00028");
    expect(shown.stdout).toContain("model 300ms · tools 20ms · approval wait 0ms · own 15ms");
    expect(shown.stdout).toContain("feedback  up 1, down 0");
    expect(shown.stdout).toMatch(
      / {2}2 {2}step 1 .*tool get_current_time \[ok\] {2}20ms {2}policy allow · args \{\} · → 10:00/,
    );
    const json = await runs(["show", "run_cli_ok", "--json"]);
    expect(json.code, json.all).toBe(0);
    const parsed = JSON.parse(json.stdout) as { runId: string; timeline: unknown[]; feedback: unknown };
    expect(parsed).toMatchObject({ runId: "run_cli_ok", feedback: { up: 1, down: 0 } });
    expect(parsed.timeline).toHaveLength(3);
    const missing = await runs(["show", "run_nope"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no run run_nope");
  });

  it("list filters by user, status and since; bad options exit 2 with the usage", {
    timeout: PROCESS_TEST_TIMEOUT_MS,
  }, async () => {
    const all = await runs(["list"]);
    expect(all.code, all.all).toBe(0);
    const lines = all.stdout.trim().split("\n");
    expect(lines[0]).toContain("run_cli_failed");
    expect(lines[1]).toContain("run_cli_ok");
    expect(lines[1]).toContain("+1/-0");
    const failed = await runs(["list", "--status", "failed", "--json"]);
    expect((JSON.parse(failed.stdout) as Array<{ runId: string }>).map((r) => r.runId)).toEqual([
      "run_cli_failed",
    ]);
    const answered = await runs(["list", "--status", "answered", "--user", "U0USER1"]);
    expect(answered.stdout).toContain("run_cli_ok");
    expect(answered.stdout).not.toContain("run_cli_failed");
    const recent = await runs(["list", "--since", "1h"]);
    expect(recent.stdout).not.toContain("run_cli_ok");
    const bad = await runs(["list", "--status", "weird"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--status must be one of answered");
    const badSince = await runs(["list", "--since", "yesterday"]);
    expect(badSince.code).toBe(2);
    expect(badSince.stderr).toContain("is not a time");
  });
});
