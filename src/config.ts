import { z } from "zod";
import { parseModelPrices } from "./core/model-prices.ts";
import type { RedisTarget } from "./core/redis-target.ts";
import { readTokenAmount, TOKEN_AMOUNT_FORMS } from "./core/token-amount.ts";

/**
 * Every environment variable Hermes reads, parsed once. Nothing else in the code reads `process.env`:
 * `main.ts` (and the CLI) call `loadConfig()` and pass what each part needs.
 */

const emptyToUndefined = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);
const optionalString = z.preprocess(emptyToUndefined, z.string().trim().optional());
const optionalUrl = (what: string) =>
  z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .refine((v) => URL.canParse(v), { message: `must be a URL (${what})` })
      .optional(),
  );
const int = (def: number, min: number, max: number) =>
  z.preprocess(
    emptyToUndefined,
    z.coerce
      .number({ message: `must be a whole number from ${min} to ${max}` })
      .int({ message: `must be a whole number from ${min} to ${max}` })
      .min(min, { message: `must be a whole number from ${min} to ${max}` })
      .max(max, { message: `must be a whole number from ${min} to ${max}` })
      .default(def),
  );
const num = (def: number, min: number, max: number) =>
  z.preprocess(
    emptyToUndefined,
    z.coerce
      .number({ message: `must be a number from ${min} to ${max}` })
      .min(min, { message: `must be a number from ${min} to ${max}` })
      .max(max, { message: `must be a number from ${min} to ${max}` })
      .default(def),
  );

/**
 * A token amount (`src/core/token-amount.ts`: `200000`, `200_000`, `200k`, `1.5m`) from `min` to `max`;
 * an ambiguous or fractional one (`0.4`, `1,5m`, `1e6`) is refused with its reason.
 */
const tokens = (def: number, min: number, max: number, allowed: string) =>
  z.preprocess(
    (v, ctx) => {
      const t = emptyToUndefined(v);
      if (typeof t !== "string") return t;
      const read = readTokenAmount(t);
      if (read.ok) return read.tokens;
      ctx.issues.push({
        code: "custom",
        input: t,
        message: `must be ${allowed}${read.problem ? `: ${read.problem}` : ""}`,
      });
      return z.NEVER;
    },
    z
      .number({ message: `must be ${allowed}` })
      .int({ message: `must be ${allowed}` })
      .min(min, { message: `must be ${allowed}` })
      .max(max, { message: `must be ${allowed}` })
      .default(def),
  );

// A daily token budget: unset or 0 = no limit.
const tokensPerDay = tokens(
  0,
  0,
  Number.MAX_SAFE_INTEGER,
  `a token count such as ${TOKEN_AMOUNT_FORMS.replace("200_000, ", "")} (0 = no limit)`,
);

const slackUserId = /^[UW][A-Z0-9]{2,}$/;

/** 32 bytes written as 64 hex digits or base64 (44 characters); undefined when it is neither. */
export function decodeKey32(text: string): Buffer | undefined {
  const t = text.trim();
  const bytes = /^[0-9a-fA-F]{64}$/.test(t)
    ? Buffer.from(t, "hex")
    : /^[A-Za-z0-9+/_-]{43}=?$/.test(t)
      ? Buffer.from(t, "base64")
      : undefined;
  return bytes?.length === 32 ? bytes : undefined;
}

const optionalKey32 = (name: string) =>
  z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .refine((v) => decodeKey32(v) !== undefined, {
        message: `must be 32 random bytes as 64 hex digits or base64 (e.g. \`openssl rand -base64 32\`) for ${name}`,
      })
      .optional(),
  );

export const envSchema = z.object({
  // Slack
  SLACK_BOT_TOKEN: z.preprocess(
    emptyToUndefined,
    z.string().trim().startsWith("xoxb-", { message: "must be a bot token starting with xoxb-" }).optional(),
  ),
  SLACK_SIGNING_SECRET: optionalString,
  SLACK_APP_TOKEN: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .startsWith("xapp-", { message: "must be an app-level token starting with xapp-" })
      .optional(),
  ),
  SLACK_API_URL: optionalUrl("the Slack Web API base, e.g. https://slack.com/api/"),
  // OAuth installs (any number of workspaces and Enterprise orgs) instead of one SLACK_BOT_TOKEN
  SLACK_CLIENT_ID: optionalString,
  SLACK_CLIENT_SECRET: optionalString,
  SLACK_STATE_SECRET: optionalString,
  // Where Slack sends the installer back (the app's redirect URL); unset: the one the app has configured
  SLACK_REDIRECT_URI: optionalUrl(
    "the app's OAuth redirect URL, e.g. https://hermes.example.com/slack/oauth_redirect",
  ),
  // Bot scopes asked for at install, comma-separated; unset: the manifest's (slack/oauth/install-scopes.ts)
  SLACK_SCOPES: optionalString,
  // Slack's OAuth authorize page (tests point it at the emulator's)
  SLACK_AUTHORIZE_URL: optionalUrl("Slack's OAuth authorize page, e.g. https://slack.com/oauth/v2/authorize"),
  // 32 bytes (base64 or hex) that encrypt the stored installation tokens; the previous key only decrypts
  HERMES_INSTALLATION_KEY: optionalKey32("HERMES_INSTALLATION_KEY"),
  HERMES_INSTALLATION_PREVIOUS_KEY: optionalKey32("HERMES_INSTALLATION_PREVIOUS_KEY"),
  // Multiplies Slack's published Web API rates Hermes paces its calls to (tests: a faster emulator)
  HERMES_SLACK_RATE_SCALE: num(1, 0.01, 10_000),
  PORT: int(3000, 0, 65535),
  // When set, GET /metrics answers only `Authorization: Bearer <token>`
  HERMES_METRICS_TOKEN: optionalString,

  // Model
  OPENAI_BASE_URL: optionalUrl("an OpenAI-compatible endpoint, e.g. http://localhost:11434/v1"),
  OPENAI_API_KEY: optionalString,
  HERMES_MODEL: optionalString,
  HERMES_MODEL_TEMPERATURE: num(0.2, 0, 2),
  HERMES_MODEL_MAX_TOKENS: tokens(
    1024,
    16,
    200_000,
    "a whole number of tokens from 16 to 200000, e.g. 1024 or 4k",
  ),
  HERMES_MODEL_TIMEOUT_MS: int(60_000, 1000, 600_000),
  HERMES_MODEL_MAX_RETRIES: int(3, 0, 10),
  HERMES_FALLBACK_MODEL: optionalString,
  HERMES_FALLBACK_BASE_URL: optionalUrl("an OpenAI-compatible endpoint for the fallback model"),
  HERMES_FALLBACK_API_KEY: optionalString,
  /** `auto`: answers stream into Slack (chat.startStream) where the workspace allows it; `off`: never. */
  HERMES_STREAMING: z.enum(["auto", "off"]).default("auto"),
  /** The Slack surface the app is installed with: `agent_view` (Messages tab, agent sessions) or `assistant_view` (split view). */
  HERMES_SLACK_SURFACE: z.preprocess(
    emptyToUndefined,
    z.enum(["agent_view", "assistant_view"]).default("agent_view"),
  ),
  /** `auto`: images people share are shown to the model when the model check found it takes them; `on`/`off`: always/never. */
  HERMES_MODEL_IMAGES: z.preprocess(emptyToUndefined, z.enum(["auto", "on", "off"]).default("auto")),
  // Speech-to-text model on the model server (/v1/audio/transcriptions) for voice notes; unset: not transcribed
  HERMES_TRANSCRIBE_MODEL: optionalString,

  // Files people share with a message: the largest one read, and all of one message's together (MB)
  HERMES_FILE_MAX_MB: int(25, 1, 1024),
  HERMES_FILES_PER_MESSAGE_MAX_MB: int(50, 1, 4096),

  // Where a ticket's link points: <base>/<id> (Work Objects in Slack, link unfurls; docs/slack-usage.md)
  HERMES_TICKET_URL_BASE: optionalUrl("the tickets' web address, e.g. https://hermes.example.com/tickets"),

  // Storage
  DATABASE_URL: optionalUrl("a Postgres URL, e.g. postgres://user@127.0.0.1:5432/hermes"),
  REDIS_URL: optionalUrl("a Redis URL, e.g. redis://127.0.0.1:6379"),
  // `on`: REDIS_URL is a node of a Redis Cluster (the queue's keys share one hash slot: `{prefix}`)
  HERMES_REDIS_CLUSTER: z.preprocess(emptyToUndefined, z.enum(["on", "off"]).default("off")),
  HERMES_DATA_DIR: z.preprocess(emptyToUndefined, z.string().trim().default(".hermes")),
  // Postgres connections per process (PGlite is one connection): processes × this ≤ max_connections − headroom
  HERMES_PG_POOL: int(5, 1, 1000),
  // Repeated statements as named prepared statements; `off` behind PgBouncer < 1.21 in transaction mode
  HERMES_PG_PREPARE: z.preprocess(emptyToUndefined, z.enum(["on", "off"]).default("on")),
  HERMES_REDIS_PREFIX: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9_-]{1,40}$/, { message: "must be 1-40 letters, digits, _ or -" })
      .default("hermes"),
  ),

  // Runtime
  HERMES_ADMINS: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .default("")
      .transform((s) =>
        s
          .split(",")
          .map((x) => x.trim())
          .filter(Boolean),
      )
      .refine((ids) => ids.every((id) => slackUserId.test(id)), {
        message: "must be comma-separated Slack user IDs like U012ABCDEF",
      }),
  ),
  HERMES_LOG_LEVEL: z.preprocess(
    emptyToUndefined,
    z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  ),
  // auto: readable lines when stdout is a terminal, JSON lines otherwise (pipes, files, containers)
  HERMES_LOG_FORMAT: z.preprocess(emptyToUndefined, z.enum(["auto", "pretty", "json"]).default("auto")),
  HERMES_CONTEXT_BUDGET_TOKENS: tokens(
    8000,
    1000,
    2_000_000,
    "a whole number of tokens from 1000 to 2000000, e.g. 8000 or 32k",
  ),
  HERMES_MAX_STEPS: int(10, 1, 100),
  HERMES_TURN_TIMEOUT_SECONDS: int(300, 5, 3600),
  // Turns one worker process runs at once (they mostly wait on the model); one thread's turns never overlap
  HERMES_WORKER_CONCURRENCY: int(32, 1, 1000),
  // Model calls in flight at once per process, primary and fallback together
  HERMES_MODEL_CONCURRENCY: int(8, 1, 1000),
  // Redis queue: how long a job's lock outlives its worker; a dead worker's turn waits about this (up to 1.5×) for another
  HERMES_QUEUE_LOCK_SECONDS: int(60, 5, 3600),
  // How often each process re-reads the schedules (ones added or removed in another process show up then)
  HERMES_SCHEDULE_RELOAD_SECONDS: int(60, 1, 3600),
  // Daily token budgets (UTC days) per requester and per channel; per-user/channel overrides live in the DB
  HERMES_BUDGET_USER_TOKENS_PER_DAY: tokensPerDay,
  HERMES_BUDGET_CHANNEL_TOKENS_PER_DAY: tokensPerDay,
  HERMES_APPROVAL_TTL_SECONDS: int(900, 10, 7 * 24 * 3600),
  HERMES_SESSION_TTL_SECONDS: int(7 * 24 * 3600, 60, 90 * 24 * 3600),
  // Days finished results, Slack events, schedule fires and runs are kept (0: forever); never the audit log
  HERMES_RETENTION_DAYS: int(30, 0, 36_500),
  // Days finished runs' records (runs, run_steps, run_feedback) are kept; default: HERMES_RETENTION_DAYS
  HERMES_RUN_RETENTION_DAYS: z.preprocess(
    emptyToUndefined,
    z.coerce
      .number({ message: "must be a whole number from 0 to 36500" })
      .int({ message: "must be a whole number from 0 to 36500" })
      .min(0, { message: "must be a whole number from 0 to 36500" })
      .max(36_500, { message: "must be a whole number from 0 to 36500" })
      .optional(),
  ),
  // Model prices for run cost estimates: model=input/output USD per 1M tokens, comma-separated
  // (e.g. gpt-4o-mini=0.15/0.6); a model not listed has an unknown cost (tokens only)
  HERMES_MODEL_PRICES: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .default("")
      .transform((text, ctx) => {
        const parsed = parseModelPrices(text);
        if (parsed.ok) return parsed.prices;
        ctx.addIssue({ code: "custom", message: parsed.error });
        return z.NEVER;
      }),
  ),
  HERMES_TOOLS: optionalString,
  HERMES_HTTP_TOOLS: optionalString,
  // A YAML or JSON file of MCP servers whose tools join the registry (src/mcp/mcp-config.ts)
  HERMES_MCP_SERVERS: optionalString,
  // A YAML file of channel profiles (src/profiles/profiles-file.ts); it wins over /hermes profile set
  HERMES_PROFILES: optionalString,

  // Audit: the HMAC key for args_sha256 and checkpoints (generated under HERMES_DATA_DIR when embedded)
  HERMES_AUDIT_KEY: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .min(32, { message: "must be at least 32 characters (openssl rand -base64 32)" })
      .optional(),
  ),
  HERMES_AUDIT_CHECKPOINT_MINUTES: int(60, 0, 7 * 24 * 60),
  HERMES_AUDIT_CHECKPOINT_FILE: optionalString,
  HERMES_AUDIT_CHECKPOINT_CHANNEL: optionalString,
});

export type Env = z.infer<typeof envSchema>;

export interface ModelConfig {
  baseURL: string | undefined;
  apiKey: string;
  model: string;
  temperature: number;
  maxOutputTokens: number;
  timeoutMs: number;
  maxRetries: number;
  /** Stream answers as they are written (HERMES_STREAMING=auto). */
  stream?: boolean;
}

/**
 * How Hermes reaches Slack, with the credentials that mode needs: none in the sandbox workspace, the
 * bot token and signing secret for signed HTTP requests, the bot and app-level tokens for Socket Mode.
 */
export type SlackConnection =
  | { mode: "sandbox" }
  | { mode: "http"; botToken: string; signingSecret: string }
  | { mode: "socket"; botToken: string; appToken: string }
  /** Installed by OAuth in any number of workspaces (and Enterprise orgs): each one's token is stored encrypted. */
  | { mode: "oauth"; signingSecret: string; oauth: OAuthSettings };

/** The app's OAuth credentials and the keys of the stored installations (`slack/oauth/`). */
export interface OAuthSettings {
  clientId: string;
  clientSecret: string;
  stateSecret: string;
  /** Encrypts and decrypts stored tokens; `previousKey` only decrypts (rotation: rows are re-sealed with `key`). */
  key: Buffer;
  previousKey?: Buffer;
  redirectUri?: string;
  /** Bot scopes asked for at install; undefined: the manifest's. */
  scopes?: string[];
  authorizeUrl?: string;
}

/** A configured model (and maybe its fallback), or none: command mode, where only `run <tool> …` works. */
export type ModelChoice =
  | {
      model: ModelConfig;
      /**
       * Used when the primary model is unreachable or twice writes calls no format reads
       * (HERMES_FALLBACK_MODEL, with HERMES_FALLBACK_BASE_URL / HERMES_FALLBACK_API_KEY).
       */
      fallbackModel?: ModelConfig;
    }
  | { model?: undefined; fallbackModel?: undefined };

export type Config = { env: Env; slack: SlackConnection } & ModelChoice;

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(
      `Hermes cannot start, the configuration is invalid:\n${problems.map((p) => `  - ${p}`).join("\n")}`,
    );
    this.name = "ConfigError";
    this.problems = problems;
  }
}

const DEFAULT_OPENAI_MODEL = "gpt-4o-mini";

/** Parses the environment; throws one `ConfigError` listing every bad variable and what is allowed. */
export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(source);
  const problems: string[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const name = String(issue.path[0] ?? "environment");
      const got = source[name];
      // Secrets are masked; token counts (`…_TOKENS…`) are not secrets.
      const shown = got === undefined ? "" : ` (got "${/TOKEN(?!S)|KEY|SECRET/.test(name) ? "***" : got}")`;
      problems.push(`${name} ${issue.message}${shown}`);
    }
    throw new ConfigError(problems);
  }
  const env = parsed.data;

  if (env.SLACK_BOT_TOKEN && !env.SLACK_SIGNING_SECRET && !env.SLACK_APP_TOKEN) {
    problems.push(
      "SLACK_SIGNING_SECRET is required with SLACK_BOT_TOKEN in HTTP mode (or set SLACK_APP_TOKEN for Socket Mode)",
    );
  }
  if (env.SLACK_APP_TOKEN && !env.SLACK_BOT_TOKEN) {
    problems.push("SLACK_BOT_TOKEN is required with SLACK_APP_TOKEN (Socket Mode needs both tokens)");
  }
  problems.push(...oauthProblems(env));
  if (env.HERMES_REDIS_CLUSTER === "on" && !env.REDIS_URL) {
    problems.push("HERMES_REDIS_CLUSTER=on needs REDIS_URL: the address of one node of the cluster");
  }
  if (env.OPENAI_BASE_URL && !env.HERMES_MODEL) {
    problems.push(
      "HERMES_MODEL is required when OPENAI_BASE_URL is set (e.g. HERMES_MODEL=qwen2.5:7b-instruct)",
    );
  }
  if ((env.HERMES_FALLBACK_BASE_URL || env.HERMES_FALLBACK_API_KEY) && !env.HERMES_FALLBACK_MODEL) {
    problems.push(
      "HERMES_FALLBACK_MODEL is required when HERMES_FALLBACK_BASE_URL or HERMES_FALLBACK_API_KEY is set",
    );
  }
  if (env.HERMES_FALLBACK_MODEL && !env.HERMES_MODEL && !env.OPENAI_API_KEY) {
    problems.push("HERMES_FALLBACK_MODEL needs a primary model: set HERMES_MODEL (and OPENAI_BASE_URL) too");
  }
  if (problems.length > 0) throw new ConfigError(problems);

  const slack = slackConnection(env);
  if (!env.HERMES_MODEL && !env.OPENAI_API_KEY) return { env, slack };
  const model: ModelConfig = {
    baseURL: env.OPENAI_BASE_URL,
    // Local servers (Ollama, vLLM) accept any key; the SDK insists on one.
    apiKey: env.OPENAI_API_KEY ?? "not-needed",
    model: env.HERMES_MODEL ?? DEFAULT_OPENAI_MODEL,
    temperature: env.HERMES_MODEL_TEMPERATURE,
    maxOutputTokens: env.HERMES_MODEL_MAX_TOKENS,
    timeoutMs: env.HERMES_MODEL_TIMEOUT_MS,
    maxRetries: env.HERMES_MODEL_MAX_RETRIES,
    stream: env.HERMES_STREAMING === "auto",
  };
  const fallback = env.HERMES_FALLBACK_MODEL;
  return { env, slack, model, ...(fallback ? { fallbackModel: fallbackOf(model, fallback, env) } : {}) };
}

/** The mode follows from the tokens set (checked above: each mode has what it needs). */
function slackConnection(env: Env): SlackConnection {
  const { SLACK_BOT_TOKEN: botToken, SLACK_APP_TOKEN: appToken, SLACK_SIGNING_SECRET: signingSecret } = env;
  if (botToken && appToken) return { mode: "socket", botToken, appToken };
  if (botToken && signingSecret) return { mode: "http", botToken, signingSecret };
  const {
    SLACK_CLIENT_ID: clientId,
    SLACK_CLIENT_SECRET: clientSecret,
    SLACK_STATE_SECRET: stateSecret,
  } = env;
  const key = env.HERMES_INSTALLATION_KEY ? decodeKey32(env.HERMES_INSTALLATION_KEY) : undefined;
  if (clientId && clientSecret && stateSecret && signingSecret && key) {
    const previousKey = env.HERMES_INSTALLATION_PREVIOUS_KEY
      ? decodeKey32(env.HERMES_INSTALLATION_PREVIOUS_KEY)
      : undefined;
    const scopes = env.SLACK_SCOPES?.split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    const oauth: OAuthSettings = {
      clientId,
      clientSecret,
      stateSecret,
      key,
      ...(previousKey ? { previousKey } : {}),
      ...(env.SLACK_REDIRECT_URI ? { redirectUri: env.SLACK_REDIRECT_URI } : {}),
      ...(scopes?.length ? { scopes } : {}),
      ...(env.SLACK_AUTHORIZE_URL ? { authorizeUrl: env.SLACK_AUTHORIZE_URL } : {}),
    };
    return { mode: "oauth", signingSecret, oauth };
  }
  return { mode: "sandbox" };
}

/** OAuth mode (client id and secret set, no bot token) needs its state secret, signing secret and key. */
function oauthProblems(env: Env): string[] {
  if (!env.SLACK_CLIENT_ID && !env.SLACK_CLIENT_SECRET) return [];
  if (env.SLACK_BOT_TOKEN) return [];
  const missing = [
    ["SLACK_CLIENT_ID", env.SLACK_CLIENT_ID],
    ["SLACK_CLIENT_SECRET", env.SLACK_CLIENT_SECRET],
    ["SLACK_STATE_SECRET", env.SLACK_STATE_SECRET],
    ["SLACK_SIGNING_SECRET", env.SLACK_SIGNING_SECRET],
    ["HERMES_INSTALLATION_KEY", env.HERMES_INSTALLATION_KEY],
  ].filter(([, v]) => !v);
  const problems = missing.map(
    ([name]) => `${name} is required for OAuth installs (SLACK_CLIENT_ID and SLACK_CLIENT_SECRET are set)`,
  );
  if (env.SLACK_APP_TOKEN)
    problems.push("OAuth installs take Slack's requests over HTTP: unset SLACK_APP_TOKEN");
  if (
    env.HERMES_INSTALLATION_PREVIOUS_KEY &&
    env.HERMES_INSTALLATION_PREVIOUS_KEY === env.HERMES_INSTALLATION_KEY
  )
    problems.push("HERMES_INSTALLATION_PREVIOUS_KEY must differ from HERMES_INSTALLATION_KEY");
  return problems;
}

/**
 * The fallback model's settings: its own name, base URL (default: the primary's server) and key. The
 * primary's key is reused only on the primary's own server, never sent to another host.
 */
function fallbackOf(primary: ModelConfig, name: string, env: Env): ModelConfig {
  const baseURL = env.HERMES_FALLBACK_BASE_URL ?? primary.baseURL;
  const sameServer = baseURL === primary.baseURL;
  return {
    ...primary,
    baseURL,
    model: name,
    apiKey: env.HERMES_FALLBACK_API_KEY ?? (sameServer ? primary.apiKey : "not-needed"),
  };
}

/** Where Redis is, when it is configured (`REDIS_URL`, `HERMES_REDIS_CLUSTER`). */
export function redisTargetOf(env: Pick<Env, "REDIS_URL" | "HERMES_REDIS_CLUSTER">): RedisTarget | undefined {
  return env.REDIS_URL ? { url: env.REDIS_URL, cluster: env.HERMES_REDIS_CLUSTER === "on" } : undefined;
}
