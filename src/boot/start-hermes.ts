import type { Config } from "../config.ts";
import type { Logger } from "../core/logger.ts";
import { DEFAULT_FILE_LIMITS } from "../files/file-limits.ts";
import { imagesAcceptedBy } from "../files/intake/images-accepted.ts";
import { createTranscriber } from "../files/intake/transcribe.ts";
import { createTurnFilesReader } from "../files/intake/turn-files-reader.ts";
import { startRouteServer } from "../http/route-server.ts";
import { loadMcpConfig } from "../mcp/mcp-config.ts";
import { createRedactor } from "../policy/redact.ts";
import { addGeneratedAuditKey, loadSecretValues, type SecretValues } from "../policy/secret-values.ts";
import { createDurableTurnQueue } from "../queue/durable-turn-queue.ts";
import { createMemoryRunStops, createRedisRunStops } from "../queue/run-stops.ts";
import { createScheduler } from "../schedules/scheduler.ts";
import { startDirectoryBroadcast } from "../slack/references/directory-broadcast.ts";
import { fireSchedule } from "../slack/schedule-fire.ts";
import { createSlackTurnOutput } from "../slack/turn-output.ts";
import { ticketLinks } from "../slack/work-objects/ticket-links.ts";
import { adoptLegacyRows } from "../store/adopt-legacy-rows.ts";
import { startTelemetry } from "../telemetry/otel-tracing.ts";
import { buildChannelProfiles, checkProfileTools, readProfilesFile } from "./build-profiles.ts";
import { buildReceiving } from "./build-receiving.ts";
import { buildRuntime, describeModel } from "./build-runtime.ts";
import { buildSlackClients, prepareSlackTarget } from "./build-slack-clients.ts";
import { buildStorage, storesOf } from "./build-storage.ts";
import { embeddedCliAccess } from "./embedded-cli-access.ts";
import { healthRoute, watchQueueWorker } from "./health-route.ts";
import type { HermesParts } from "./hermes-parts.ts";
import { metricsRouteOf, processMetrics } from "./process-metrics.ts";
import type { ProcessRole } from "./process-role.ts";
import { sandboxPage } from "./sandbox-page.ts";
import type { SandboxSlack } from "./sandbox-slack.ts";
import { seedDemoTickets } from "./seed-demo-tickets.ts";
import { startWorker } from "./start-worker.ts";

export interface StartOptions {
  config: Config;
  logger: Logger;
  rawEnv: Record<string, string | undefined>;
  /** What this process does (see `ProcessRole`). Default: both receiver and worker. */
  role?: ProcessRole;
  /** Secret values redacted by value (main builds them first, for its logger); default: from config. */
  secrets?: SecretValues;
}

export interface RunningHermes {
  port: number;
  url: string;
  /** Every part, for tests and tools that inspect a running Hermes. */
  services: HermesParts;
  sandbox?: SandboxSlack;
  stop(): Promise<void>;
}

/**
 * The composition root: storage, Slack clients (real, or the sandbox workspace), the agent runtime,
 * the receiver, the worker and the background timers, started in that order and stopped in reverse.
 */
export async function startHermes(o: StartOptions): Promise<RunningHermes> {
  const { logger, rawEnv } = o;
  const role = o.role ?? "all";
  // Read before anything starts: a bad file stops start-up with its one message and leaves nothing open.
  const mcpServers = o.config.env.HERMES_MCP_SERVERS
    ? await loadMcpConfig(o.config.env.HERMES_MCP_SERVERS, { env: rawEnv, cwd: process.cwd() })
    : [];
  const profilesFile = readProfilesFile(o.config.env.HERMES_PROFILES);
  const config = withSandboxAdmin(o.config);
  const { target, sandbox } = await prepareSlackTarget(config, logger);
  const secrets = o.secrets ?? (await loadSecretValues({ config, rawEnv }));
  if (sandbox) secrets.add(sandbox.botToken, sandbox.signingSecret);
  const redactor = createRedactor({ secrets });
  // OpenTelemetry tracing only when an OTLP endpoint is set: the SDK is not even loaded otherwise.
  const telemetry = await startTelemetry({ env: rawEnv, logger, redact: redactor.redactText });
  // One registry per process (never prom-client's global one): `/metrics` on the health port.
  const metrics = processMetrics(config);

  const built = await buildStorage(config, logger, { redact: redactor.redact, metrics });
  addGeneratedAuditKey(secrets, config);
  // Embedded: `npm run runs` / `npm run audit` run here while this process owns the data.
  const cliAccess = embeddedCliAccess(built, config, logger);
  // Turn jobs are kept with their events in the database until they finish, so a crash loses none.
  const queue = watchQueueWorker(
    createDurableTurnQueue({ queue: built.queue, pending: built.events, logger }),
  );
  if (sandbox) await seedDemoTickets(built.handle.db);
  const storage = storesOf(built);
  storage.profiles = buildChannelProfiles({
    handle: built.handle,
    audit: built.audit,
    fromFile: profilesFile,
  });

  const slack = await buildSlackClients(target, { config, logger, redactor, metrics, db: built.handle.db });
  // One bot token serves one workspace: rows from before team scoping (team_id '') become its own.
  if (slack.bot.teamId) await adoptLegacyRows(built.handle.db, slack.bot.teamId, logger);
  const { runtime, mcp } = await buildRuntime({
    config,
    logger,
    storage: built,
    slack: slack.slack,
    redactor,
    rawEnv,
    mcpServers,
    profiles: storage.profiles,
    metrics,
  });
  checkProfileTools(profilesFile, runtime.registry, logger);
  const output = createSlackTurnOutput({
    slack,
    runtime,
    storage,
    logger,
    surface: config.env.HERMES_SLACK_SURFACE,
    ticketLinks: ticketLinks(config.env.HERMES_TICKET_URL_BASE),
    // Appends of one streamed message at most once a second (tier 4 is shared by every message). A
    // Slack stream opens only once the run's model streams: HERMES_STREAMING sets whether the models
    // stream, and a channel's profile may say otherwise for its runs (`streaming: on|off`).
    streaming: { minIntervalMs: 1000 / config.env.HERMES_SLACK_RATE_SCALE },
  });
  const readFiles = output.files
    ? createTurnFilesReader({
        slack: output.files,
        audit: built.audit,
        redact: redactor.redact,
        redactText: redactor.redactSecrets,
        results: built.results,
        limits: {
          ...DEFAULT_FILE_LIMITS,
          maxFileBytes: config.env.HERMES_FILE_MAX_MB * 1024 * 1024,
          maxTurnBytes: config.env.HERMES_FILES_PER_MESSAGE_MAX_MB * 1024 * 1024,
        },
        imagesAccepted: imagesAcceptedBy(config),
        ...(config.model && config.env.HERMES_TRANSCRIBE_MODEL
          ? {
              transcribe: createTranscriber({
                baseURL: config.model.baseURL,
                apiKey: config.model.apiKey,
                model: config.env.HERMES_TRANSCRIBE_MODEL,
                timeoutMs: config.model.timeoutMs,
              }),
            }
          : {}),
      })
    : undefined;
  // The user's Stop reaches the worker running the thread's run: through Redis when there are several processes.
  const stops = built.redis
    ? createRedisRunStops({ redis: built.redis, keyPrefix: `${config.env.HERMES_REDIS_PREFIX}:`, logger })
    : createMemoryRunStops();
  const parts: HermesParts = {
    stops,
    config,
    logger,
    storage,
    runtime,
    slack,
    queue,
    output,
    ...(readFiles ? { readFiles } : {}),
    ...(mcp ? { mcp } : {}),
    budgets: built.budgets,
    metrics,
  };

  const modelInfo = describeModel(config);
  const metricsRoute = metricsRouteOf(metrics, parts);
  const scheduler = createScheduler({
    store: built.schedules,
    logger,
    refreshMs: config.env.HERMES_SCHEDULE_RELOAD_SECONDS * 1000,
    // OAuth installs: a schedule fires as its team's workspace (its token, its channel).
    onFire: (fire) =>
      slack.installs
        ? slack.installs.workspaces.run(fire.schedule.teamId || undefined, () => fireSchedule(parts, fire))
        : fireSchedule(parts, fire),
  });
  // Bolt and the listeners are loaded only by processes that receive events (all, receiver): a worker needs neither.
  const slackApp =
    role === "worker"
      ? undefined
      : await buildReceiving(parts, {
          target,
          routes: [
            healthRoute(parts, modelInfo, role === "receiver" ? undefined : queue),
            metricsRoute,
            ...(cliAccess ? [cliAccess.route] : []),
            ...(sandbox ? [sandbox.route] : []),
          ],
          schedules: built.schedules,
          scheduler,
        });
  // With Redis, a directory event one process receives reaches every process's directory.
  const { REDIS_URL, HERMES_REDIS_PREFIX } = config.env;
  const directoryBroadcast =
    // OAuth installs: each workspace's directory is fed by its own events only.
    REDIS_URL && slack.directory && !slack.installs
      ? startDirectoryBroadcast({
          redisUrl: REDIS_URL,
          cluster: config.env.HERMES_REDIS_CLUSTER === "on",
          prefix: HERMES_REDIS_PREFIX,
          directory: slack.directory,
          logger,
        })
      : undefined;
  if (slackApp) directoryBroadcast?.publishFrom(slackApp.app);
  const port = sandbox?.port ?? config.env.PORT;
  let started: { port: number; stop(): Promise<void> };
  try {
    // The sandbox page lets whoever opens it act as anyone: it listens on loopback only.
    // A worker takes no Slack request; it serves `/healthz` for its readiness probe.
    started = slackApp
      ? { ...(await slackApp.start(port, sandbox ? "127.0.0.1" : undefined)), stop: () => slackApp.stop() }
      : await startRouteServer([healthRoute(parts, modelInfo, queue), metricsRoute], port);
  } catch (err) {
    // Nothing half-started stays behind: the database and Redis connections and the MCP servers
    // close with the error.
    await slackApp?.stop().catch(() => undefined);
    await directoryBroadcast?.close();
    await mcp?.close().catch(() => undefined);
    await stops.close().catch(() => undefined);
    await built.close().catch(() => undefined);
    await telemetry?.stop();
    throw err;
  }
  cliAccess?.publish(started.port);
  sandbox?.attachPage(sandboxPage(storage, config, modelInfo));
  // A receiver runs no turn and no background work: the workers do (each of those is claimed once
  // in Postgres, so any number of workers may run it).
  const background = role === "receiver" ? undefined : await startWorker(parts, queue, scheduler);

  const url = sandbox
    ? `http://localhost:${started.port}/`
    : `http://localhost:${started.port}/${role === "worker" ? "healthz" : "slack/events"}`;
  return {
    port: started.port,
    url,
    services: parts,
    sandbox,
    async stop() {
      await background?.stop();
      await started.stop().catch(() => undefined);
      sandbox?.close();
      await built.queue.stop({ timeoutMs: 10_000 }).catch(() => undefined);
      // After the queue's workers: a turn still finishing may be calling an MCP tool.
      await mcp?.close().catch(() => undefined);
      await directoryBroadcast?.close();
      await stops.close().catch(() => undefined);
      await built.close();
      // Last: the spans of what just stopped are sent.
      await telemetry?.stop();
    },
  };
}

/** In the sandbox the demo admin is an admin, so approvals and the audit panel can be tried at once. */
function withSandboxAdmin(config: Config): Config {
  if (config.slack.mode !== "sandbox") return config;
  const admins = [...new Set([...config.env.HERMES_ADMINS, "U0ADMIN"])];
  return { ...config, env: { ...config.env, HERMES_ADMINS: admins } };
}
