/**
 * `npm start`: receiver and worker in one process. With no Slack token this is the embedded default:
 * the sandbox workspace at http://localhost:$PORT/, PGlite, in-process stores.
 */
import { startHermes } from "./boot/start-hermes.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { createLogger } from "./logger.ts";
import { createRedactor } from "./policy/redact.ts";
import { loadSecretValues } from "./policy/secret-values.ts";

const role = process.argv.includes("--worker") ? "worker" : "all";

async function main() {
  const config = loadConfig(process.env);
  if (role === "worker" && (!config.env.REDIS_URL || config.slackMode === "sandbox")) {
    throw new ConfigError([
      "`npm run worker` needs REDIS_URL (the queue it takes turns from) and a Slack token (SLACK_BOT_TOKEN); the sandbox runs receiver and worker in one process with `npm start`",
    ]);
  }
  // One set of secret values for the whole process: the logger's redactor and everything startHermes builds.
  const secrets = await loadSecretValues({ config, rawEnv: process.env });
  const logger = createLogger({
    level: config.env.HERMES_LOG_LEVEL,
    redact: createRedactor({ secrets }).redact,
  });
  const hermes = await startHermes({ config, logger, rawEnv: process.env, role, secrets });
  const mode =
    role === "worker"
      ? "worker only"
      : config.slackMode === "sandbox"
        ? `sandbox workspace at ${hermes.url}`
        : `Slack ${config.slackMode === "socket" ? "Socket Mode" : `events at ${hermes.url}`}`;
  const model = config.model
    ? `model ${config.model.model} at ${config.model.baseURL ?? "api.openai.com"}`
    : "command mode (no model configured: set OPENAI_BASE_URL and HERMES_MODEL)";
  // The one line a person starting Hermes needs to see.
  console.log(`Hermes is running: ${mode} — ${model}`);

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
  console.error(`Hermes could not start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
