import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { evalCommand } from "../../src/eval/eval-command.ts";
import { createEvalEnvironment, type EvalEnvironment } from "../../src/eval/eval-environment.ts";
import type { TargetResult } from "../../src/eval/evaluate-targets.ts";
import { answer, ScriptedModelServer, type ScriptStep, toolCalls } from "../helpers/scripted-model.ts";

/**
 * The eval suite end to end: scenario files → the real runtime, registry, policy and audit on one
 * PGlite (shared by every test here: its start-up is the cost) → scores, reports and exit codes.
 */
let environment: EvalEnvironment;
beforeAll(async () => {
  environment = await createEvalEnvironment(silentLogger());
}, 120_000);
afterAll(async () => {
  await environment?.close();
});

let dir: string;
const servers: ScriptedModelServer[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "hermes-eval-test-"));
});
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
  await rm(dir, { recursive: true, force: true });
});

async function modelServer(): Promise<ScriptedModelServer> {
  const server = await new ScriptedModelServer().start();
  servers.push(server);
  return server;
}

const modelEnv = (server: ScriptedModelServer, model = "scripted-a") => ({
  OPENAI_BASE_URL: server.baseURL,
  HERMES_MODEL: model,
  OPENAI_API_KEY: "test-key",
  HERMES_MODEL_MAX_RETRIES: "0",
});

async function run(argv: string[], env: Record<string, string | undefined>) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await evalCommand([...argv, "--out", join(dir, "results")], {
    env,
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    environment,
  });
  const reports = code === 2 ? [] : readdirSync(join(dir, "results"));
  const json = reports.find((f) => f.endsWith(".json"));
  const report = json
    ? (JSON.parse(readFileSync(join(dir, "results", json), "utf8")) as { results: TargetResult[] })
    : undefined;
  const markdown = reports.find((f) => f.endsWith(".md"));
  return {
    code,
    out: out.join("\n"),
    err: err.join("\n"),
    results: report?.results ?? [],
    markdown: markdown ? readFileSync(join(dir, "results", markdown), "utf8") : "",
  };
}

const scenarios = {
  "a.yaml": `name: a passes
requester: viewer
messages: [What time is it in Berlin?]
expect:
  calls: [{ tool: get_current_time, args: { timezone: Europe/Berlin } }]
  answer: { contains: [Berlin] }
`,
  "b.yaml": `name: b wrong tool
requester: viewer
messages: [Any tickets about the VPN?]
expect:
  calls: [{ tool: search_tickets, args: { query: { regex: vpn, flags: i } } }]
`,
  "c.yaml": `name: c forbidden call
requester: admin
messages: [Tidy up ticket 3.]
expect:
  forbidden: [delete_ticket]
`,
  "d.yaml": `name: d missing approval
requester: user
messages: [Tell <@U0WANGLEI> the VPN is fixed.]
expect:
  calls: [{ tool: send_message, args: { to: { regex: U0WANGLEI } } }]
  approval: true
`,
  "e.yaml": `name: e answer missing text
requester: viewer
messages: [Any tickets about the VPN?]
expect:
  calls: [{ tool: search_tickets, args: { query: { regex: vpn, flags: i } } }]
  answer: { contains: ["#1"] }
`,
  "f.yaml": `name: f invalid arguments then fixed
requester: viewer
messages: [Show me ticket two.]
expect:
  calls: [{ tool: get_ticket, args: { id: 2 } }]
  max_steps: 3
`,
};

/** What the "model" answers, scenario by scenario (they run in name order). */
function playScript(server: ScriptedModelServer) {
  server.enqueue(
    // a: a call with single-quoted arguments (repaired), then an answer
    toolCalls([{ name: "get_current_time", args: "{'timezone': 'Europe/Berlin'}" }]),
    answer("It is 11:00 in Berlin."),
    // b: the wrong tool
    toolCalls([{ name: "get_ticket", args: { id: 1 } }]),
    answer("Ticket 1 is about the VPN."),
    // c: the forbidden call (it pauses for approval; nobody approves)
    toolCalls([{ name: "delete_ticket", args: { id: 3 } }]),
    // d: claims to have sent it without calling anything
    answer("Done, I told him."),
    // e: right call, answer without the ticket number
    toolCalls([{ name: "search_tickets", args: { query: "vpn" } }]),
    answer("I found one ticket."),
    // f: invalid arguments, then the same call done right
    toolCalls([{ name: "get_ticket", args: { id: "two" } }]),
    toolCalls([{ name: "get_ticket", args: { id: 2 } }]),
    answer("Ticket #2 is the printer."),
  );
}

async function writeScenarios(names: Array<keyof typeof scenarios>) {
  for (const n of names) await writeFile(join(dir, n), scenarios[n]);
}

describe("npm run eval", () => {
  it("every shipped scenario parses and passes with --scripted", async () => {
    const shipped = readdirSync("evals").filter((f) => f.endsWith(".yaml"));
    expect(shipped.length).toBeGreaterThanOrEqual(30);
    const r = await run(["--scripted"], {});
    expect(r.err).not.toMatch(/FAIL/);
    expect(r.code).toBe(0);
    expect(r.results[0]?.totals).toMatchObject({ runs: shipped.length, passed: shipped.length, passRate: 1 });
    expect(r.out).toMatch(new RegExp(`TOTAL\\s+${shipped.length}/${shipped.length}\\s+100%`));
  }, 120_000);

  it("scores a model that passes some scenarios and fails others, exactly", async () => {
    const server = await modelServer();
    playScript(server);
    await writeScenarios(["a.yaml", "b.yaml", "c.yaml", "d.yaml", "e.yaml", "f.yaml"]);
    const r = await run([dir, "--min-pass", "0.5"], modelEnv(server));
    expect(server.remaining).toBe(0);
    expect(r.code).toBe(1);
    expect(r.err).toMatch("A: pass rate 33% is below --min-pass 50%");

    const result = r.results[0]!;
    const byName = Object.fromEntries(result.scenarios.map((s) => [s.name, s.runs[0]!]));
    expect(Object.fromEntries(Object.entries(byName).map(([n, x]) => [n, x.score.passed]))).toEqual({
      "a passes": true,
      "b wrong tool": false,
      "c forbidden call": false,
      "d missing approval": false,
      "e answer missing text": false,
      "f invalid arguments then fixed": true,
    });
    const failed = (n: string) =>
      byName[n]!.score.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`);
    expect(failed("b wrong tool")).toEqual(["calls search_tickets: not called (made: get_ticket)"]);
    expect(failed("c forbidden call")).toEqual(["never delete_ticket: called delete_ticket (pending)"]);
    expect(failed("d missing approval")).toEqual([
      "calls send_message: not called (made: no calls)",
      "asks for approval: no approval asked",
    ]);
    expect(failed("e answer missing text")).toEqual(['answer has "#1": answer was: "I found one ticket."']);
    expect(byName["c forbidden call"]!.record).toMatchObject({ status: "paused", approvalsRequested: 1 });
    expect(byName["f invalid arguments then fixed"]!.record.calls.map((c) => c.outcome)).toEqual([
      "invalid",
      "executed",
    ]);

    expect(result.totals).toMatchObject({
      runs: 6,
      passed: 2,
      passRate: 2 / 6,
      // expected calls made + forbidden calls avoided: a 1/1, b 0/1, c 0/1, d 0/1, e 1/1, f 1/1
      toolChoice: 3 / 6,
      // calls whose arguments validated: a 1/1, b 1/1, c 1/1, e 1/1, f 1/2
      argValidity: 5 / 6,
      // the 100 + 20 tokens of each of the 11 completions
      tokens: 11 * 120,
      costUsd: null,
    });
    expect(result.totals.repairs).toBeGreaterThanOrEqual(1);
    expect(byName["a passes"]!.record.repairs).toBe(result.totals.repairs);
    expect(r.out).toMatch(/TOTAL\s+2\/6\s+50%\s+83%/);
    expect(r.markdown).toMatch(/\| b wrong tool \| 0\/1 \| 0% \| 100% \|/);
  }, 60_000);

  it("--min-pass 0 (the default) never fails the run; --repeat runs each scenario N times; --prices gives cost", async () => {
    const server = await modelServer();
    for (let i = 0; i < 2; i++)
      server.enqueue(
        toolCalls([{ name: "search_tickets", args: { query: "vpn" } }]),
        answer("I found one ticket."),
      );
    await writeScenarios(["e.yaml"]);
    const prices = join(dir, "prices.json");
    await writeFile(prices, JSON.stringify({ "scripted-a": { input: 1, output: 10 } }));
    const r = await run([dir, "--repeat", "2", "--prices", prices], modelEnv(server));
    expect(r.code).toBe(0);
    expect(r.results[0]!.scenarios[0]!.runs).toHaveLength(2);
    expect(r.results[0]!.totals).toMatchObject({ runs: 2, passed: 0, tokens: 480 });
    // 2 runs × 2 calls × (100 × $1 + 20 × $10) per million tokens
    expect(r.results[0]!.totals.costUsd).toBeCloseTo((4 * (100 + 200)) / 1e6, 10);
    expect(r.out).toMatch(/answer has "#1": answer was: "I found one ticket\." \(×2\)/);
  }, 60_000);

  it("cost uses the bot's HERMES_MODEL_PRICES, each call priced by the model that answered it; --prices overrides", async () => {
    /** A scripted step as if another model had answered it (the server names it in `model`). */
    const answeredBy = (model: string, step: ScriptStep): ScriptStep => {
      const { completion } = step as { completion: Record<string, unknown> };
      return { completion: { ...completion, model } };
    };
    const server = await modelServer();
    const play = () =>
      server.enqueue(
        // A dated server name takes its base name's price, as for the bot's run records.
        answeredBy("big-2025-01-01", toolCalls([{ name: "search_tickets", args: { query: "vpn" } }])),
        answeredBy("small", answer("Yes: #1 VPN drops every 10 minutes.")),
      );
    await writeScenarios(["e.yaml"]);
    const env = { ...modelEnv(server), HERMES_MODEL_PRICES: "big=1/10, small=2/20, scripted-a=100/100" };

    // No --prices: the bot's prices. 100 prompt + 20 completion tokens per call:
    // big 100 × $1 + 20 × $10, small 100 × $2 + 20 × $20 per million (not the configured scripted-a's).
    play();
    const bots = await run([dir], env);
    expect(bots.code).toBe(0);
    expect(bots.results[0]!.scenarios[0]!.runs[0]!.record.models).toEqual(["big-2025-01-01", "small"]);
    expect(bots.results[0]!.totals.costUsd).toBeCloseTo((300 + 600) / 1e6, 12);
    expect(bots.out).toContain("$0.0009");

    // --prices overrides the models it lists; the others keep the bot's prices. (Each run's report
    // is read from a fresh results folder.)
    await rm(join(dir, "results"), { recursive: true, force: true });
    play();
    const prices = join(dir, "prices.json");
    await writeFile(prices, JSON.stringify({ small: { input: 0, output: 0 } }));
    const overridden = await run([dir, "--prices", prices], env);
    expect(overridden.results[0]!.totals.costUsd).toBeCloseTo(300 / 1e6, 12);

    // A call by a model with no price (only the first one is priced here): cost unknown, tokens only.
    await rm(join(dir, "results"), { recursive: true, force: true });
    play();
    const unknown = await run([dir], { ...modelEnv(server), HERMES_MODEL_PRICES: "big=1/10" });
    expect(unknown.results[0]!.totals).toMatchObject({ tokens: 240, costUsd: null });
    expect(unknown.results[0]!.scenarios[0]!.runs[0]!.costUsd).toBeUndefined();
  }, 60_000);

  it("--compare runs a second configuration side by side and --min-pass judges each", async () => {
    const a = await modelServer();
    const b = await modelServer();
    a.enqueue(
      toolCalls([{ name: "get_current_time", args: { timezone: "Europe/Berlin" } }]),
      answer("It is 11:00 in Berlin."),
      toolCalls([{ name: "search_tickets", args: { query: "VPN" } }]),
      answer("Yes: #1 VPN drops every 10 minutes."),
    );
    b.enqueue(
      toolCalls([{ name: "get_current_time", args: { timezone: "Europe/Berlin" } }]),
      answer("It is 11:00 in Berlin."),
      answer("I don't think so."),
    );
    await writeScenarios(["a.yaml", "e.yaml"]);
    const prompt = join(dir, "prompt.txt");
    await writeFile(prompt, "You are a terse assistant.");
    const r = await run(
      [
        dir,
        "--compare",
        `model=scripted-b,base-url=${b.baseURL},system-prompt=${prompt}`,
        "--min-pass",
        "75%",
      ],
      modelEnv(a),
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch("B: pass rate 50% is below --min-pass 75%");
    expect(r.err).not.toMatch("A: pass rate");
    expect(r.results.map((x) => [x.label, x.model, x.totals.passed])).toEqual([
      ["A", "scripted-a", 2],
      ["B", "scripted-b", 1],
    ]);
    expect(b.requests[0]!.body.model).toBe("scripted-b");
    expect(b.requests[0]!.body.messages[0]!.content).toContain("You are a terse assistant.");
    expect(a.requests[0]!.body.messages[0]!.content).not.toContain("You are a terse assistant.");
    expect(r.out).toMatch(/Comparison/);
    expect(r.out).toMatch(/e answer missing text\s+1\/1\s+0\/1\s+worse in B/);
    expect(r.out).toMatch(/a passes\s+1\/1\s+1\/1\s*\n/);
    expect(r.out).toMatch(/TOTAL pass\s+2\/2\s+1\/2\s+changed/);
    expect(r.markdown).toMatch(/## Comparison/);
  }, 60_000);

  it("exits 2 with a sentence for bad options, unknown tools and a missing model", async () => {
    await writeFile(join(dir, "x.yaml"), "name: x\nmessages: [hi]\nexpect:\n  forbidden: [drop_database]\n");
    const unknown = await run([dir, "--scripted"], {});
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(
      /x\.yaml: expect\.forbidden\[0\]: "drop_database" is not a tool \(known: .*create_ticket/,
    );

    expect(unknown.err).toMatch(/x\.yaml: no script, so with --scripted .* fails/);

    const unknownOption = await run([dir, "--scripted", "--temperature", "2"], {});
    expect(unknownOption.code).toBe(2);
    expect(unknownOption.err).toMatch(/^Unknown option '--temperature'/);

    const noModel = await run([dir], {});
    expect(noModel.code).toBe(2);
    expect(noModel.err).toMatch(/No model is configured.*--scripted/);

    const badRate = await run([dir, "--scripted", "--min-pass", "120%"], {});
    expect(badRate.code).toBe(2);
    expect(badRate.err).toBe('--min-pass must be a rate like 0.8 or 80%, got "120%"');

    const badCompare = await run([dir, "--scripted", "--compare", "temperature=2"], {});
    expect(badCompare.err).toMatch(/--compare: "temperature=2" is not one of model=…/);
  }, 60_000);
});
