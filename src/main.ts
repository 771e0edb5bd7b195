/**
 * `npm start`: receiver and worker in one process. With no Slack token this is the embedded default:
 * the sandbox workspace at http://localhost:$PORT/, PGlite, in-process stores.
 * `npm start -- --receiver`: Slack requests only; `npm run worker` (`--worker`): turns only (see
 * `process-role.ts`).
 */
import { flushCompileCache } from "node:module";
import { parseRole, roleProblems } from "./boot/process-role.ts";
import { startHermes } from "./boot/start-hermes.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { createLogger, logFormat } from "./core/logger.ts";
import { createRedactor } from "./policy/redact.ts";
import { loadSecretValues } from "./policy/secret-values.ts";
import { DataDirBusyError } from "./store/data-dir-lock.ts";

async function main() {
  const role = parseRole(process.argv.slice(2));
  if (typeof role !== "string") throw new ConfigError([role.error]);
  const config = loadConfig(process.env);
  const problems = roleProblems(role, config);
  if (problems.length > 0) throw new ConfigError(problems);
  // One set of secret values for the whole process: the logger's redactor and everything startHermes builds.
  const secrets = await loadSecretValues({ config, rawEnv: process.env });
  const logger = createLogger({
    level: config.env.HERMES_LOG_LEVEL,
    redact: createRedactor({ secrets }).redactForLog,
    format: logFormat(config.env.HERMES_LOG_FORMAT, process.stdout.isTTY),
  });
  const hermes = await startHermes({ config, logger, rawEnv: process.env, role, secrets });
  const slack =
    config.slack.mode === "sandbox"
      ? `sandbox workspace at ${hermes.url}`
      : `Slack ${config.slack.mode === "socket" ? "Socket Mode" : `events at ${hermes.url}`}`;
  const mode =
    role === "worker"
      ? `worker only (health at ${hermes.url})`
      : role === "receiver"
        ? `receiver only, ${slack}`
        : slack;
  const model = config.model
    ? `model ${config.model.model} at ${config.model.baseURL ?? "api.openai.com"}`
    : "command mode (no model configured: set OPENAI_BASE_URL and HERMES_MODEL)";
  // The one line a person starting Hermes needs to see.
  console.log(`Hermes is running: ${mode} — ${model}`);
  // What start-up compiled goes to the compile cache now (when npm start enabled it,
  // boot/compile-cache.mjs), not only at a clean exit: a killed process's next start is warm too.
  flushCompileCache();

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down: no new events, finishing running turns");
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    await hermes.stop().catch((err: unknown) => logger.error({ err: String(err) }, "shutdown error"));
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError || (err as { code?: string }).code === "config_invalid") {
    console.error((err as Error).message);
    process.exit(2);
  }
  // Another process owns the embedded data: its one sentence names it.
  if (err instanceof DataDirBusyError) {
    console.error(err.message);
    process.exit(1);
  }
  console.error(`Hermes could not start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
