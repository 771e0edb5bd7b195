import { parseArgs } from "node:util";
import { checkModel } from "../agent/model/model-check/check-model.ts";
import { modelCheckLines } from "../agent/model/model-check/findings.ts";
import { offlineToolSpecs } from "../boot/offline-tool-specs.ts";
import { ConfigError, loadConfig } from "../config.ts";
import { errorMessage } from "../core/errors.ts";
import { createRedactor } from "../policy/redact.ts";
import { collectSecretValues } from "../policy/secret-values.ts";

const USAGE = `Usage: npm run model:check [-- --json]

Probes the model configured by OPENAI_BASE_URL, OPENAI_API_KEY and HERMES_MODEL with the bot's own
tool specs: models listed, server family, context window, native tool calls or the text format they
fall back to (or, for a syntax Hermes cannot read, the reply itself and the likely family), whether
tool results are accepted, streaming (and tool calls while streaming), whether the model sees
pictures, latency. Exit code 0 when Hermes can use it, 1 when not.`;

const NO_MODEL = `No model is configured, so there is nothing to check. For example:
  OPENAI_BASE_URL=http://localhost:11434/v1 HERMES_MODEL=qwen3 npm run model:check     (Ollama)
  OPENAI_BASE_URL=http://localhost:8000/v1  HERMES_MODEL=<served model> npm run model:check  (vLLM)
  OPENAI_API_KEY=sk-… npm run model:check                                             (OpenAI)`;

/** `npm run model:check`: the report as lines (or JSON), exit 0 when usable, 1 when not, 2 on bad config. */
async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { json: { type: "boolean" }, help: { type: "boolean", short: "h" } },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const config = loadConfig();
  if (!config.model) {
    console.error(NO_MODEL);
    return 1;
  }
  // Server error texts are echoed: the configured key (or a password in a URL) never is.
  const redactor = createRedactor({ secrets: collectSecretValues({ config }) });
  const print = (line: string) => console.log(redactor.redactSecrets(line));
  const tools = await offlineToolSpecs(config, process.env);
  if (!values.json) {
    print(`checking ${config.model.model} at ${config.model.baseURL ?? "api.openai.com"} …`);
  }
  const result = await checkModel({ model: config.model, specs: tools.specs });
  if (values.json) {
    const report = { ...result, ...(tools.note ? { toolsNote: tools.note } : {}) };
    console.log(JSON.stringify(redactor.redactSecretsDeep(report), null, 2));
  } else {
    if (tools.note) print(`note: ${tools.note}`);
    for (const line of modelCheckLines(result)) print(line);
  }
  return result.verdict.status === "not_usable" ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof ConfigError ? err.message : `model:check: ${errorMessage(err)}`);
    process.exit(err instanceof ConfigError ? 2 : 1);
  },
);
