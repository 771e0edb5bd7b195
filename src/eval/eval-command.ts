import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import pino from "pino";
import { z } from "zod";
import { createOpenAIModel } from "../agent/model/openai-model.ts";
import { ConfigError, loadConfig, type ModelConfig } from "../config.ts";
import { errorMessage, isHermesError } from "../core/errors.ts";
import { createLogger, silentLogger } from "../core/logger.ts";
import type { ModelPrices } from "../core/model-prices.ts";
import { createRedactor } from "../policy/redact.ts";
import { parseTimeBound } from "../store/audit-time.ts";
import { CLI_LOCK_WAIT_MS } from "../store/data-dir-lock.ts";
import { openDatabase } from "../store/db.ts";
import { createEvalEnvironment, type EvalEnvironment } from "./eval-environment.ts";
import { runEval, type TargetResult } from "./evaluate-targets.ts";
import { markdownReport, plainReport } from "./format-report.ts";
import { draftsFromFeedback } from "./from-feedback.ts";
import { loadScenarios, ScenarioFileError } from "./load-scenarios.ts";
import type { EvalTarget } from "./play-scenario.ts";
import { ScriptedModelServer } from "./scripted-model-server.ts";

export const USAGE = `Usage: npm run eval -- [files or folders…] [options]     (default: evals/)

  --scripted              play each scenario's script: offline, no model needed (CI)
  --repeat N              run every scenario N times (default 1)
  --system-prompt FILE    use this system prompt instead of Hermes' own
  --compare SPEC          also run a second configuration and show the differences; SPEC is
                          model=NAME[,base-url=URL][,system-prompt=FILE][,api-key-env=VAR]
                          (unset fields: as the first configuration)
  --min-pass RATE         exit 1 when a configuration's pass rate is below RATE (0.8 or 80%; default 0)
  --prices FILE           JSON {"model": {"input": usd, "output": usd}} per million tokens: overrides
                          HERMES_MODEL_PRICES (the bot's own prices, used for cost by default) for
                          the models it lists
  --out DIR               where the JSON and Markdown reports go (default eval-results/)
  --trace FILE            also write every run's trace (JSON lines, redacted) for npm run agent -- --replay
  --from-feedback         write draft scenarios from 👎-rated runs instead (DATABASE_URL, else
                          PGlite under HERMES_DATA_DIR) [--since 7d] [--drafts evals/drafts]

The model is OPENAI_BASE_URL / HERMES_MODEL / OPENAI_API_KEY, as for npm start.
Exit codes: 0 done, 1 pass rate below --min-pass, 2 bad options, scenario files or configuration.`;

export interface EvalIo {
  env: Record<string, string | undefined>;
  out: (text: string) => void;
  err: (text: string) => void;
  /** An environment to run in (tests share one across calls); made and closed here when absent. */
  environment?: EvalEnvironment;
  now?: () => Date;
}

class UsageError extends Error {}

const pricesSchema = z.record(
  z.string(),
  z.strictObject({ input: z.number().min(0), output: z.number().min(0) }),
);

function parseRate(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(%?)$/.exec(text.trim());
  const value = m ? Number(m[1]) / (m[2] ? 100 : 1) : Number.NaN;
  if (!(value >= 0 && value <= 1))
    throw new UsageError(`--min-pass must be a rate like 0.8 or 80%, got "${text}"`);
  return value;
}

function parseRepeat(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 100)
    throw new UsageError(`--repeat must be a whole number from 1 to 100, got "${text}"`);
  return n;
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    throw new UsageError(`${what}: cannot read ${path}`);
  }
}

function parsePrices(path: string): ModelPrices {
  let raw: unknown;
  try {
    raw = JSON.parse(readText(path, "--prices"));
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`--prices: ${path} is not JSON`);
  }
  const parsed = pricesSchema.safeParse(raw);
  if (!parsed.success)
    throw new UsageError(
      `--prices: ${path}: each model needs {"input": usd, "output": usd} per million tokens`,
    );
  return parsed.data;
}

const COMPARE_KEYS = ["model", "base-url", "system-prompt", "api-key-env"];

function parseCompare(spec: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const part of spec.split(",")) {
    const at = part.indexOf("=");
    const key = part.slice(0, at).trim();
    if (at < 1 || !COMPARE_KEYS.includes(key))
      throw new UsageError(
        `--compare: "${part}" is not one of ${COMPARE_KEYS.map((k) => `${k}=…`).join(", ")}`,
      );
    fields[key] = part.slice(at + 1).trim();
  }
  return fields;
}

const SCRIPTED_MODEL: ModelConfig = {
  baseURL: undefined,
  apiKey: "scripted",
  model: "scripted",
  temperature: 0,
  maxOutputTokens: 1024,
  timeoutMs: 10_000,
  maxRetries: 0,
};

/** The runtime's trace lines into `path`, redacted like the bot's own log. */
function traceLogger(path: string) {
  mkdirSync(dirname(resolve(path)), { recursive: true });
  return createLogger({
    level: "info",
    redact: createRedactor().redactForLog,
    destination: pino.destination({ dest: path, sync: true }),
  });
}

type Target = EvalTarget & { modelName: string; baseURL?: string; systemPromptFile?: string };

/** `npm run eval`: returns the exit code. */
export async function evalCommand(argv: string[], io: EvalIo): Promise<number> {
  const servers: ScriptedModelServer[] = [];
  let environment = io.environment;
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        scripted: { type: "boolean", default: false },
        repeat: { type: "string", default: "1" },
        "system-prompt": { type: "string" },
        compare: { type: "string" },
        "min-pass": { type: "string", default: "0" },
        prices: { type: "string" },
        out: { type: "string", default: "eval-results" },
        trace: { type: "string" },
        "from-feedback": { type: "boolean", default: false },
        since: { type: "string", default: "7d" },
        drafts: { type: "string", default: "evals/drafts" },
        help: { type: "boolean", short: "h" },
      },
    });
    if (values.help) {
      io.out(USAGE);
      return 0;
    }
    const config = loadConfig(io.env);
    if (values["from-feedback"]) {
      const since = parseTimeBound(values.since);
      const handle = await openDatabase({
        databaseUrl: config.env.DATABASE_URL,
        dataDir: config.env.HERMES_DATA_DIR,
        logger: silentLogger(),
        preparedStatements: config.env.HERMES_PG_PREPARE === "on",
        // Embedded: never beside a running Hermes, whose data this reads.
        owner: { role: "cli", command: "npm run eval", waitMs: CLI_LOCK_WAIT_MS },
      });
      try {
        const r = await draftsFromFeedback({
          db: handle.db,
          since,
          dir: values.drafts,
          admins: config.env.HERMES_ADMINS,
        });
        for (const f of r.written) io.out(`wrote ${f}`);
        for (const f of r.kept) io.out(`kept ${f} (already there)`);
        if (r.written.length + r.kept.length === 0) io.out(`no 👎-rated runs since ${since.toISOString()}`);
        return 0;
      } finally {
        await handle.close();
      }
    }
    const repeat = parseRepeat(values.repeat);
    const minPass = parseRate(values["min-pass"]);
    // Priced as the bot prices its runs; a --prices file overrides the models it lists.
    const prices: ModelPrices = {
      ...config.env.HERMES_MODEL_PRICES,
      ...(values.prices ? parsePrices(values.prices) : {}),
    };
    const scenarios = loadScenarios(positionals.length ? positionals : ["evals"]);
    if (values.scripted)
      for (const s of scenarios.filter((x) => !x.script?.length))
        io.err(`${s.file}: no script, so with --scripted the model answers nothing useful and it fails`);

    const targetOf = async (
      label: string,
      model: ModelConfig,
      systemPromptFile: string | undefined,
    ): Promise<Target> => {
      const systemPrompt = systemPromptFile ? readText(systemPromptFile, "system prompt") : undefined;
      let scripted: ScriptedModelServer | undefined;
      if (values.scripted) {
        scripted = await new ScriptedModelServer().start();
        servers.push(scripted);
      }
      const settings = scripted ? { ...model, baseURL: scripted.baseURL } : model;
      return {
        label,
        model: createOpenAIModel(settings),
        limits: {
          maxSteps: config.env.HERMES_MAX_STEPS,
          contextBudgetTokens: config.env.HERMES_CONTEXT_BUDGET_TOKENS,
          turnTimeoutMs: config.env.HERMES_TURN_TIMEOUT_SECONDS * 1000,
        },
        modelName: settings.model,
        ...(scripted ? { scripted } : settings.baseURL ? { baseURL: settings.baseURL } : {}),
        ...(systemPrompt ? { systemPrompt, systemPromptFile } : {}),
      };
    };
    const primary = values.scripted ? SCRIPTED_MODEL : config.model;
    if (!primary)
      throw new UsageError(
        "No model is configured: set OPENAI_BASE_URL and HERMES_MODEL (or OPENAI_API_KEY), or run the scenarios' scripts offline with --scripted.",
      );
    const targets = [await targetOf("A", primary, values["system-prompt"])];
    if (values.compare !== undefined) {
      const c = parseCompare(values.compare);
      const baseURL = c["base-url"] ?? primary.baseURL;
      // The first configuration's key goes only to its own server.
      const apiKey = c["api-key-env"]
        ? (io.env[c["api-key-env"]] ?? "")
        : baseURL === primary.baseURL
          ? primary.apiKey
          : "not-needed";
      if (c["api-key-env"] && !apiKey) throw new UsageError(`--compare: ${c["api-key-env"]} is not set`);
      targets.push(
        await targetOf(
          "B",
          { ...primary, model: c.model ?? primary.model, baseURL, apiKey },
          c["system-prompt"] ?? values["system-prompt"],
        ),
      );
    }

    environment ??= await createEvalEnvironment(values.trace ? traceLogger(values.trace) : silentLogger());
    const results: TargetResult[] = [];
    for (const target of targets) {
      io.err(`${target.label}: ${scenarios.length} scenarios × ${repeat} on ${target.modelName}…`);
      results.push(
        await runEval({
          env: environment,
          target,
          scenarios,
          repeat,
          prices,
          onRun: (name, passed) => io.err(`  ${passed ? "pass" : "FAIL"}  ${name}`),
        }),
      );
    }
    const when = io.now?.() ?? new Date();
    mkdirSync(values.out, { recursive: true });
    const base = join(values.out, `eval-${when.toISOString().replace(/[:.]/g, "-")}`);
    writeFileSync(
      `${base}.json`,
      `${JSON.stringify({ at: when.toISOString(), repeat, minPass, results }, null, 2)}\n`,
    );
    writeFileSync(`${base}.md`, markdownReport(results, when));
    io.out(plainReport(results));
    io.out(`reports: ${base}.json, ${base}.md`);
    const below = results.filter((r) => r.totals.passRate < minPass);
    for (const r of below)
      io.err(
        `${r.label}: pass rate ${Math.round(r.totals.passRate * 100)}% is below --min-pass ${Math.round(minPass * 100)}%`,
      );
    return below.length ? 1 : 0;
  } catch (err) {
    if (err instanceof ConfigError || err instanceof ScenarioFileError || err instanceof UsageError) {
      io.err(err.message);
      return 2;
    }
    if (isHermesError(err) || String((err as { code?: unknown }).code).startsWith("ERR_PARSE_ARGS")) {
      io.err(errorMessage(err));
      return 2;
    }
    throw err;
  } finally {
    for (const s of servers) await s.stop();
    if (environment && !io.environment) await environment.close();
  }
}
