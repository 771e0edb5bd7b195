import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.ts";

describe("loadConfig", () => {
  it("runs the embedded default with nothing set", () => {
    const c = loadConfig({});
    expect(c.slack.mode).toBe("sandbox");
    expect(c.model).toBeUndefined();
    expect(c.env.PORT).toBe(3000);
    expect(c.env.HERMES_MAX_STEPS).toBe(10);
    expect(c.env.HERMES_CONTEXT_BUDGET_TOKENS).toBe(8000);
    expect(c.env.HERMES_APPROVAL_TTL_SECONDS).toBe(900);
    expect(c.env.HERMES_ADMINS).toEqual([]);
  });

  it("configures any OpenAI-compatible model", () => {
    const c = loadConfig({
      OPENAI_BASE_URL: "http://localhost:11434/v1",
      HERMES_MODEL: "qwen2.5:7b-instruct",
    });
    expect(c.model).toMatchObject({
      baseURL: "http://localhost:11434/v1",
      model: "qwen2.5:7b-instruct",
      temperature: 0.2,
      apiKey: "not-needed",
    });
    expect(loadConfig({ OPENAI_API_KEY: "sk-x" }).model?.model).toBe("gpt-4o-mini");
  });

  it("picks the Slack mode from the tokens", () => {
    expect(loadConfig({ SLACK_BOT_TOKEN: "xoxb-1", SLACK_SIGNING_SECRET: "s" }).slack.mode).toBe("http");
    expect(loadConfig({ SLACK_BOT_TOKEN: "xoxb-1", SLACK_APP_TOKEN: "xapp-1" }).slack.mode).toBe("socket");
  });

  it("carries each Slack mode's credentials, and only those", () => {
    const both = { SLACK_BOT_TOKEN: "xoxb-1", SLACK_SIGNING_SECRET: "s", SLACK_APP_TOKEN: "xapp-1" };
    expect(loadConfig({ SLACK_BOT_TOKEN: "xoxb-1", SLACK_SIGNING_SECRET: "s" }).slack).toEqual({
      mode: "http",
      botToken: "xoxb-1",
      signingSecret: "s",
    });
    expect(loadConfig(both).slack).toEqual({ mode: "socket", botToken: "xoxb-1", appToken: "xapp-1" });
    expect(loadConfig({}).slack).toEqual({ mode: "sandbox" });
  });

  it("treats empty strings as unset (as .env files write them)", () => {
    expect(loadConfig({ PORT: "", DATABASE_URL: "", HERMES_ADMINS: "" }).env.PORT).toBe(3000);
  });

  it("lists every bad variable in one clear message, hiding secrets", () => {
    let err: unknown;
    try {
      loadConfig({
        PORT: "eighty",
        HERMES_MAX_STEPS: "0",
        HERMES_ADMINS: "U0ADMIN,alice",
        SLACK_BOT_TOKEN: "xoxp-user-token",
        DATABASE_URL: "not a url",
        HERMES_LOG_LEVEL: "loud",
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const msg = (err as Error).message;
    expect(msg).toContain("PORT must be a whole number from 0 to 65535");
    expect(msg).toContain("HERMES_MAX_STEPS must be a whole number from 1 to 100");
    expect(msg).toContain("HERMES_ADMINS must be comma-separated Slack user IDs");
    expect(msg).toContain("SLACK_BOT_TOKEN must be a bot token starting with xoxb-");
    expect(msg).not.toContain("xoxp-user-token");
    expect(msg).toContain("DATABASE_URL must be a URL");
    expect(msg).toContain("HERMES_LOG_LEVEL");
    expect((err as ConfigError).problems).toHaveLength(6);
  });

  it("refuses half-configured modes", () => {
    expect(() => loadConfig({ OPENAI_BASE_URL: "http://localhost:11434/v1" })).toThrow(
      /HERMES_MODEL is required/,
    );
    expect(() => loadConfig({ SLACK_BOT_TOKEN: "xoxb-1" })).toThrow(/SLACK_SIGNING_SECRET is required/);
  });

  it("configures a fallback model that never receives the primary's key on another host", () => {
    const sameServer = loadConfig({
      OPENAI_BASE_URL: "http://vllm:8000/v1",
      OPENAI_API_KEY: "sk-primary",
      HERMES_MODEL: "qwen3-32b",
      HERMES_FALLBACK_MODEL: "qwen3-8b",
    });
    expect(sameServer.fallbackModel).toMatchObject({
      baseURL: "http://vllm:8000/v1",
      model: "qwen3-8b",
      apiKey: "sk-primary",
    });
    const elsewhere = loadConfig({
      OPENAI_BASE_URL: "http://vllm:8000/v1",
      OPENAI_API_KEY: "sk-primary",
      HERMES_MODEL: "qwen3-32b",
      HERMES_FALLBACK_MODEL: "llama3.1:8b",
      HERMES_FALLBACK_BASE_URL: "http://ollama:11434/v1",
    });
    expect(elsewhere.fallbackModel).toMatchObject({
      baseURL: "http://ollama:11434/v1",
      apiKey: "not-needed",
    });
    expect(loadConfig({ HERMES_MODEL: "m" }).fallbackModel).toBeUndefined();
    expect(() => loadConfig({ HERMES_FALLBACK_MODEL: "x" })).toThrow(/needs a primary model/);
    expect(() => loadConfig({ HERMES_MODEL: "m", HERMES_FALLBACK_BASE_URL: "http://x/v1" })).toThrow(
      /HERMES_FALLBACK_MODEL is required/,
    );
  });

  it("sizes workers, model calls and the Postgres pool: defaults, overrides, clear refusals", () => {
    const d = loadConfig({}).env;
    expect([d.HERMES_WORKER_CONCURRENCY, d.HERMES_MODEL_CONCURRENCY, d.HERMES_PG_POOL]).toEqual([32, 8, 5]);
    const set = loadConfig({
      HERMES_WORKER_CONCURRENCY: "64",
      HERMES_MODEL_CONCURRENCY: "2",
      HERMES_PG_POOL: "20",
    }).env;
    expect([set.HERMES_WORKER_CONCURRENCY, set.HERMES_MODEL_CONCURRENCY, set.HERMES_PG_POOL]).toEqual([
      64, 2, 20,
    ]);
    let err: unknown;
    try {
      loadConfig({ HERMES_WORKER_CONCURRENCY: "0", HERMES_MODEL_CONCURRENCY: "1.5", HERMES_PG_POOL: "many" });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect([...(err as ConfigError).problems].sort()).toEqual([
      'HERMES_MODEL_CONCURRENCY must be a whole number from 1 to 1000 (got "1.5")',
      'HERMES_PG_POOL must be a whole number from 1 to 1000 (got "many")',
      'HERMES_WORKER_CONCURRENCY must be a whole number from 1 to 1000 (got "0")',
    ]);
  });

  it("times a dead worker's failover and the schedule reload: defaults, overrides, clear refusals", () => {
    const d = loadConfig({}).env;
    expect([d.HERMES_QUEUE_LOCK_SECONDS, d.HERMES_SCHEDULE_RELOAD_SECONDS]).toEqual([60, 60]);
    const set = loadConfig({ HERMES_QUEUE_LOCK_SECONDS: "15", HERMES_SCHEDULE_RELOAD_SECONDS: "5" }).env;
    expect([set.HERMES_QUEUE_LOCK_SECONDS, set.HERMES_SCHEDULE_RELOAD_SECONDS]).toEqual([15, 5]);
    let err: unknown;
    try {
      // A lock shorter than a few seconds would be lost by a live worker in a GC pause: refused.
      loadConfig({ HERMES_QUEUE_LOCK_SECONDS: "1", HERMES_SCHEDULE_RELOAD_SECONDS: "0" });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect([...(err as ConfigError).problems].sort()).toEqual([
      'HERMES_QUEUE_LOCK_SECONDS must be a whole number from 5 to 3600 (got "1")',
      'HERMES_SCHEDULE_RELOAD_SECONDS must be a whole number from 1 to 3600 (got "0")',
    ]);
  });
});
