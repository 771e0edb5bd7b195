import { mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import pino from "pino";
import { createOpenAIModel } from "../agent/model/openai-model.ts";
import type { TurnResult } from "../agent/run/loop.ts";
import { replayTrace } from "../agent/run/trace-format.ts";
import { ConfigError, loadConfig } from "../config.ts";
import { createLogger } from "../core/logger.ts";
import { createRedactor } from "../policy/redact.ts";
import { collectSecretValues } from "../policy/secret-values.ts";
import { DEMO } from "../sandbox/seed-demo-workspace.ts";
import { runAgentTurn } from "./agent-turn.ts";
import { openAgentWorkspace } from "./agent-workspace.ts";

const USAGE = `Usage:
  npm run agent -- "task text" [--user U0USER1] [--approve] [--data-dir dir] [--trace trace.jsonl] [--tz Europe/Berlin]
  npm run agent -- --replay trace.jsonl [--run <runId>]

The turn runs with the bot's own tools against a demo workspace: embedded PGlite with a few tickets
(a temporary one, or --data-dir to keep it) and an in-process Slack with Zhang Wei (U0ADMIN, admin),
Li Ming (U0USER1) and Wang Lei (U0WANGLEI). Calls that need approval are asked about in the terminal;
--approve approves them all.`;

const NO_MODEL = `No model is configured. Point Hermes at any OpenAI-compatible server, for example:
  Ollama:    OPENAI_BASE_URL=http://localhost:11434/v1 HERMES_MODEL=qwen2.5:7b-instruct npm run agent -- "what time is it in Berlin?"
  vLLM:      OPENAI_BASE_URL=http://localhost:8000/v1  HERMES_MODEL=<served model name> …
  LM Studio: OPENAI_BASE_URL=http://localhost:1234/v1  HERMES_MODEL=<model id> …
  OpenAI:    OPENAI_API_KEY=sk-… [HERMES_MODEL=gpt-4o-mini] …`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      replay: { type: "string" },
      run: { type: "string" },
      trace: { type: "string" },
      user: { type: "string", default: DEMO.user },
      approve: { type: "boolean", default: false },
      "data-dir": { type: "string" },
      tz: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return print(USAGE, 0);
  if (values.replay) {
    console.log(replayTrace(readFileSync(values.replay, "utf8"), values.run));
    return 0;
  }
  const task = positionals.join(" ").trim();
  if (!task) return print(USAGE, 2);

  const config = loadConfig();
  if (!config.model) return print(NO_MODEL, 1);

  const tracePath = values.trace ?? `${config.env.HERMES_DATA_DIR}/traces/agent-${Date.now()}.jsonl`;
  mkdirSync(dirname(tracePath), { recursive: true });
  // The trace file never holds the configured secrets (the model key above all), nor PII.
  const { redact, redactForLog } = createRedactor({ secrets: collectSecretValues({ config }) });
  const logger = createLogger({
    level: "info",
    redact: redactForLog,
    destination: pino.destination({ dest: tracePath, sync: true }),
  });
  const model = createOpenAIModel(config.model);
  console.log(
    `model ${config.model.model} at ${config.model.baseURL ?? "api.openai.com"}; trace → ${tracePath}`,
  );
  const workspace = await openAgentWorkspace({
    config,
    rawEnv: process.env,
    logger,
    model,
    redact,
    ...(values["data-dir"] ? { dataDir: values["data-dir"] } : {}),
  });
  let result: TurnResult;
  try {
    result = await runAgentTurn(workspace, {
      task,
      userId: values.user,
      ...(values.tz ? { timezone: values.tz } : {}),
      approve: values.approve,
      model,
      ...(config.fallbackModel ? { fallbackModel: createOpenAIModel(config.fallbackModel) } : {}),
      limits: {
        maxSteps: config.env.HERMES_MAX_STEPS,
        contextBudgetTokens: config.env.HERMES_CONTEXT_BUDGET_TOKENS,
        turnTimeoutMs: config.env.HERMES_TURN_TIMEOUT_SECONDS * 1000,
      },
      logger,
      print: (line) => console.log(line),
    });
  } finally {
    await workspace.close();
  }
  console.log(`\n${result.answer}`);
  const u = result.usage;
  console.log(
    `\n(${result.status}; ${result.steps} steps, ${result.modelCalls} model calls, ${u.promptTokens}+${u.completionTokens} tokens)`,
  );
  return result.status === "completed" ? 0 : 1;
}

function print(text: string, code: number): number {
  (code === 0 ? console.log : console.error)(text);
  return code;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(
      err instanceof ConfigError
        ? err.message
        : `hermes agent: ${err instanceof Error ? err.message : String(err)}`,
    );
    process.exit(err instanceof ConfigError ? 2 : 1);
  },
);
