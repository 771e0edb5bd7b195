import type { WebClient } from "@slack/web-api";
import type { AgentRuntime } from "../agent/agent-runtime.ts";
import { modelCallLimit } from "../agent/limit-model-calls.ts";
import { createOpenAIModel } from "../agent/openai-model.ts";
import { type ModelSet, modelsForRun } from "../agent/run-models.ts";
import type { Config } from "../config.ts";
import { httpFetch } from "../http-fetch.ts";
import type { Logger } from "../logger.ts";
import { loadMcpConfig } from "../mcp/mcp-config.ts";
import { createIsAdmin } from "../policy/is-admin.ts";
import { createRedactor } from "../policy/redact.ts";
import { addGeneratedAuditKey, loadSecretValues, type SecretValues } from "../policy/secret-values.ts";
import { createDurableTurnQueue, type DurableTurnQueue } from "../queue/durable-turn-queue.ts";
import { handleJob } from "../queue/job-handler.ts";
import { recoverUnfinishedWork } from "../queue/recover-run.ts";
import { createScheduler, type Scheduler } from "../schedules/scheduler.ts";
import { preloadMrkdwn } from "../slack/mrkdwn.ts";
import { CallScheduler } from "../slack/rate-limit/call-scheduler.ts";
import { PacedWebClient } from "../slack/rate-limit/paced-web-client.ts";
import { redactingSlackPort } from "../slack/redacting-slack-port.ts";
import { fireSchedule } from "../slack/schedule-fire.ts";
import { slackLogger } from "../slack/slack-logger.ts";
import type { BotIdentity, SlackOutput } from "../slack/slack-output.ts";
import { createSlackTurnOutput } from "../slack/turn-output.ts";
import { createWebSlackPort } from "../slack/web-slack-port.ts";
import { recordAuditRead } from "../store/audit-read.ts";
import { createAuditSink } from "../store/audit-sink.ts";
import type { Storage } from "../store/storage.ts";
import { startBackgroundWork } from "./background-work.ts";
import { buildStorage } from "./build-storage.ts";
import { buildTools } from "./build-tools.ts";
import { embeddedCliAccess } from "./embedded-cli-access.ts";
import { healthRoute, watchQueueWorker } from "./health-route.ts";
import type { HermesParts } from "./hermes-parts.ts";
import type { ProcessRole } from "./process-role.ts";
import { startRouteServer } from "./route-server.ts";
import type { SandboxSlack } from "./sandbox-slack.ts";
import { seedDemoTickets } from "./seed-demo-tickets.ts";

export interface StartOptions {
  config: Config;
  logger: Logger;
  rawEnv: Record<string, string | undefined>;
  /** What this process does (see `ProcessRole`). Default: both receiver and worker. */
  role?: ProcessRole;
  /** Secret values redacted by value (main builds them first, for its logger); default: from config. */
  secrets?: SecretValues;
}

/** With Redis, a turn accepted this long ago whose job was never queued is taken as lost. */
const SHARED_RECOVERY_GRACE_MS = 5_000;

export interface RunningHermes {
  port: number;
  url: string;
  /** Every part, for tests and tools that inspect a running Hermes. */
  services: HermesParts;
  sandbox?: SandboxSlack;
  stop(): Promise<void>;
}

/**
 * The composition root's body: storage, model, tools, Slack (real, or the sandbox workspace), the
 * worker and the background timers, started in that order and stopped in reverse.
 */
export async function startHermes(o: StartOptions): Promise<RunningHermes> {
  const { logger } = o;
  const role = o.role ?? "all";
  // Read before anything starts: a bad file stops start-up with its one message and leaves nothing open.
  const mcpServers = o.config.env.HERMES_MCP_SERVERS
    ? await loadMcpConfig(o.config.env.HERMES_MCP_SERVERS, { env: o.rawEnv, cwd: process.cwd() })
    : [];
  // In the sandbox the demo admin is an admin, so approvals and the audit panel can be tried at once.
  const isSandbox = o.config.slackMode === "sandbox";
  const admins = isSandbox
    ? [...new Set([...o.config.env.HERMES_ADMINS, "U0ADMIN"])]
    : o.config.env.HERMES_ADMINS;
  const config: Config = { ...o.config, env: { ...o.config.env, HERMES_ADMINS: admins } };
  // The sandbox (Web API emulator, page) is loaded only when there is no Slack token.
  const sandbox = isSandbox
    ? await (await import("./sandbox-slack.ts")).prepareSandboxSlack({
        port: config.env.PORT,
        admins,
        logger,
        dataDir: config.env.HERMES_DATA_DIR,
      })
    : undefined;
  const env = config.env;
  const secrets = o.secrets ?? (await loadSecretValues({ config, rawEnv: o.rawEnv }));
  if (sandbox) secrets.add(sandbox.botToken, sandbox.signingSecret);
  const redactor = createRedactor({ secrets });
  const storage = await buildStorage(config, logger, { redact: redactor.redact });
  addGeneratedAuditKey(secrets, config);
  // Embedded: `npm run runs` / `npm run audit` run here while this process owns the data.
  const cliAccess = embeddedCliAccess(storage, config, logger);
  // Turn jobs are kept with their events in the database until they finish, so a crash loses none.
  const durableQueue = watchQueueWorker(
    createDurableTurnQueue({ queue: storage.queue, pending: storage.events, logger }),
  );
  if (sandbox) await seedDemoTickets(storage.handle.db);

  const botToken = sandbox?.botToken ?? env.SLACK_BOT_TOKEN!;
  const slackApiUrl = sandbox?.slackApiUrl ?? env.SLACK_API_URL;
  // One scheduler of Web API calls for both clients: per-budget queues paced to Slack's rate limits.
  const webOptions = {
    ...(slackApiUrl ? { slackApiUrl } : {}),
    // Keep-alive node:http instead of the built-in fetch, as the model client (http-fetch.ts).
    fetch: httpFetch(),
    logger: slackLogger(logger, "web-api"),
    scheduler: new CallScheduler({ logger: logger.child({ component: "slack-pacing" }) }),
    rateScale: env.HERMES_SLACK_RATE_SCALE,
  };
  const client = new PacedWebClient(botToken, {
    ...webOptions,
    lane: "deliver",
    retryConfig: { retries: 2, factor: 2, minTimeout: 300, maxTimeout: 3000, maxRetryTime: 15_000 },
  });
  const progressClient = new PacedWebClient(botToken, {
    ...webOptions,
    lane: "progress",
    retryConfig: { retries: 0 },
  });
  const bot = sandbox?.bot ?? (await authTest(client));
  const slack = redactingSlackPort(createWebSlackPort(client, { logger }), redactor);

  // One cap on model calls in flight for the whole process: the primary and the fallback share it.
  // Each run rebuilds these with its budget meter inside the limit and command mode (`modelsForRun`).
  const models: ModelSet = {
    ...(config.model ? { primary: createOpenAIModel(config.model) } : {}),
    ...(config.fallbackModel ? { fallback: createOpenAIModel(config.fallbackModel) } : {}),
    limit: modelCallLimit(env.HERMES_MODEL_CONCURRENCY),
  };
  const realModel = models.primary;
  const { model, fallbackModel } = modelsForRun(models);
  const auditSink = createAuditSink({ audit: storage.audit, redact: redactor.redact });
  // Every role connects to the MCP servers: workers call their tools, and a receiver's `/hermes tools`,
  // access checks and approval cards need the same tool list (and its servers' state) as the workers.
  const { registry, guards, mcp } = await buildTools({
    config,
    logger,
    db: storage.handle.db,
    users: storage.users,
    results: storage.results,
    slack,
    model,
    ...(realModel ? { budget: storage.budgets } : {}),
    models,
    auditSink,
    rawEnv: o.rawEnv,
    mcpServers,
  });
  const stores: Storage = {
    db: storage.handle,
    audit: storage.audit,
    approvals: storage.approvals,
    runs: storage.runs,
    runQuery: storage.runQuery,
    runRecords: storage.runRecords,
    events: storage.events,
    users: storage.users,
    sessions: storage.sessions,
    feedback: storage.feedback,
  };
  const runtime: AgentRuntime = {
    model,
    ...(fallbackModel ? { fallbackModel } : {}),
    registry,
    guards,
    auditSink,
    // Only a real model's calls are paid from the daily token budgets (command mode costs nothing).
    ...(realModel ? { budget: storage.budgets } : {}),
    models,
    limits: {
      maxSteps: env.HERMES_MAX_STEPS,
      contextBudgetTokens: env.HERMES_CONTEXT_BUDGET_TOKENS,
      turnTimeoutMs: env.HERMES_TURN_TIMEOUT_SECONDS * 1000,
    },
  };
  const slackOutput: SlackOutput = { client, progressClient, slack, redactor, bot };
  const output = createSlackTurnOutput({
    ...slackOutput,
    registry,
    logger,
    approvals: storage.approvals,
    // Appends of one streamed message at most once a second (tier 4 is shared by every message).
    streaming: env.HERMES_STREAMING === "off" ? "off" : { minIntervalMs: 1000 / env.HERMES_SLACK_RATE_SCALE },
  });
  const parts: HermesParts = {
    ...stores,
    ...runtime,
    ...slackOutput,
    config,
    logger,
    queue: durableQueue,
    output,
    ...(mcp ? { mcp } : {}),
    budgets: storage.budgets,
  };

  const fallbackInfo = config.fallbackModel
    ? `, fallback ${config.fallbackModel.model} at ${config.fallbackModel.baseURL ?? "api.openai.com"}`
    : "";
  const modelInfo = realModel
    ? `model ${config.model!.model} at ${config.model!.baseURL ?? "api.openai.com"}${fallbackInfo}`
    : "command mode (no model configured)";
  // Bolt and the listeners are loaded only by processes that receive events (all, receiver): a worker needs neither.
  const receiving = role === "worker" ? undefined : await loadReceiving();
  const intake = receiving?.createEventIntake(parts);
  const slackApp =
    receiving === undefined
      ? undefined
      : receiving.createSlackApp({
          botToken,
          signingSecret: sandbox?.signingSecret ?? env.SLACK_SIGNING_SECRET,
          appToken: sandbox ? undefined : env.SLACK_APP_TOKEN,
          slackApiUrl,
          logger,
          bot,
          routes: [
            healthRoute(parts, modelInfo, role === "receiver" ? undefined : durableQueue),
            ...(cliAccess ? [cliAccess.route] : []),
            ...(sandbox ? [sandbox.route] : []),
          ],
          events: intake,
          ...(intake ? { assistant: receiving.createHermesAssistant(parts, intake) } : {}),
        });
  const scheduler = createScheduler({
    store: storage.schedules,
    logger,
    refreshMs: env.HERMES_SCHEDULE_RELOAD_SECONDS * 1000,
    onFire: (fire) => fireSchedule(parts, fire),
  });
  if (slackApp && receiving && intake) {
    intake.register(slackApp.app);
    const admin = receiving.registerAdminSurfaces(slackApp.app, parts, {
      schedules: storage.schedules,
      onSchedulesChanged: () => scheduler.reload(),
    });
    receiving.registerActionListeners(slackApp.app, parts, { refreshHome: admin.refreshHome });
  }
  const port = sandbox?.port ?? env.PORT;
  let started: { port: number; stop(): Promise<void> };
  try {
    // The sandbox page lets whoever opens it act as anyone: it listens on loopback only.
    // A worker takes no Slack request; it serves `/healthz` for its readiness probe.
    started = slackApp
      ? { ...(await slackApp.start(port, sandbox ? "127.0.0.1" : undefined)), stop: () => slackApp.stop() }
      : await startRouteServer([healthRoute(parts, modelInfo, durableQueue)], port);
  } catch (err) {
    // Nothing half-started stays behind: the database and Redis connections and the MCP servers
    // close with the error.
    await slackApp?.stop().catch(() => undefined);
    await mcp?.close().catch(() => undefined);
    await storage.close().catch(() => undefined);
    throw err;
  }
  cliAccess?.publish(started.port);
  if (sandbox) {
    sandbox.attachPage({
      modelInfo,
      runQuery: storage.runQuery,
      isAdmin: createIsAdmin({ users: storage.users, admins: config.env.HERMES_ADMINS }),
      auditFeed: async ({ reader, opened }) => {
        if (opened) {
          await recordAuditRead(storage.audit, {
            surface: "sandbox_page",
            actorId: reader,
            filters: { limit: 50 },
          });
        }
        const [page, verify] = await Promise.all([
          storage.audit.query({ limit: 50 }),
          storage.audit.verify(),
        ]);
        return {
          rows: page.rows,
          verify: verify.ok
            ? { ok: true, rows: verify.rows }
            : { ok: false, rowId: verify.rowId, reason: verify.reason },
        };
      },
    });
  }
  // A receiver runs no turn and no background work: the workers do (each of those is claimed once
  // in Postgres, so any number of workers may run it).
  const background = role === "receiver" ? undefined : await startWorker(parts, durableQueue, scheduler);

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
      await storage.queue.stop({ timeoutMs: 10_000 }).catch(() => undefined);
      // After the queue's workers: a turn still finishing may be calling an MCP tool.
      await mcp?.close().catch(() => undefined);
      await storage.close();
    },
  };
}

/**
 * The worker side: runs queued jobs (`HERMES_WORKER_CONCURRENCY` at once), picks up turns left
 * unfinished, and starts the background work. Embedded: one process, so everything unfinished is
 * from before it. With Redis, other processes may be accepting turns right now: only turns accepted
 * a while ago without a queued job are lost ones (the job id is the receiver's, so a queued or
 * running one is not queued twice), at start and on the background sweep.
 */
async function startWorker(parts: HermesParts, durableQueue: DurableTurnQueue, scheduler: Scheduler) {
  const { config, logger } = parts;
  preloadMrkdwn();
  await durableQueue.process((job, ctx) => handleJob(parts, job, ctx), {
    concurrency: config.env.HERMES_WORKER_CONCURRENCY,
  });
  const recoverTurns = config.env.REDIS_URL
    ? () => durableQueue.recoverPending(new Date(Date.now() - SHARED_RECOVERY_GRACE_MS))
    : undefined;
  await (recoverTurns ? recoverTurns() : recoverUnfinishedWork(parts, durableQueue)).catch((err: unknown) =>
    logger.error({ err: String(err) }, "could not pick up unfinished turns"),
  );
  return startBackgroundWork(parts, scheduler, { recoverTurns });
}

/** Bolt, the listeners and the admin surfaces: loaded only by processes that take Slack requests. */
async function loadReceiving() {
  const [app, events, actions, admin, assistant] = await Promise.all([
    import("../slack/create-slack-app.ts"),
    import("../slack/event-listeners.ts"),
    import("../slack/action-listeners.ts"),
    import("./admin-surfaces.ts"),
    import("../slack/assistant/create-assistant.ts"),
  ]);
  return { ...app, ...events, ...actions, ...admin, ...assistant };
}

async function authTest(client: WebClient): Promise<BotIdentity> {
  const r = await client.auth.test();
  if (!r.user_id || !r.team_id)
    throw new Error("auth.test did not return the bot's user and team: check SLACK_BOT_TOKEN");
  return { userId: r.user_id, botId: r.bot_id, teamId: r.team_id };
}
