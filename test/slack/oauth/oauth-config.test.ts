import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type ConfigError, decodeKey32, loadConfig } from "../../../src/config.ts";
import { BOT_SCOPES } from "../../../src/core/bot-scopes.ts";

const key = randomBytes(32);
const OAUTH = {
  SLACK_CLIENT_ID: "1.2",
  SLACK_CLIENT_SECRET: "client-secret",
  SLACK_STATE_SECRET: "state-secret",
  SLACK_SIGNING_SECRET: "signing-secret",
  HERMES_INSTALLATION_KEY: key.toString("base64"),
};

const problemsOf = (env: Record<string, string>) => {
  try {
    loadConfig(env);
    return [];
  } catch (err) {
    return (err as ConfigError).problems;
  }
};

describe("OAuth installs in the configuration", () => {
  it("client id and secret without a bot token: OAuth mode with its key", () => {
    const config = loadConfig({
      ...OAUTH,
      HERMES_INSTALLATION_PREVIOUS_KEY: randomBytes(32).toString("hex"),
    });
    expect(config.slack.mode).toBe("oauth");
    if (config.slack.mode !== "oauth") return;
    expect(config.slack.oauth.key.equals(key)).toBe(true);
    expect(config.slack.oauth.previousKey).toHaveLength(32);
    expect(config.slack.signingSecret).toBe("signing-secret");
  });

  it("a bot token keeps single-workspace HTTP mode", () => {
    expect(loadConfig({ ...OAUTH, SLACK_BOT_TOKEN: "xoxb-1" }).slack.mode).toBe("http");
  });

  it("names each missing piece, and a key that is not 32 bytes", () => {
    expect(problemsOf({ SLACK_CLIENT_ID: "1.2", SLACK_CLIENT_SECRET: "s" })).toEqual([
      "SLACK_STATE_SECRET is required for OAuth installs (SLACK_CLIENT_ID and SLACK_CLIENT_SECRET are set)",
      "SLACK_SIGNING_SECRET is required for OAuth installs (SLACK_CLIENT_ID and SLACK_CLIENT_SECRET are set)",
      "HERMES_INSTALLATION_KEY is required for OAuth installs (SLACK_CLIENT_ID and SLACK_CLIENT_SECRET are set)",
    ]);
    const short = problemsOf({ ...OAUTH, HERMES_INSTALLATION_KEY: randomBytes(16).toString("base64") });
    expect(short).toHaveLength(1);
    expect(short[0]).toMatch(/^HERMES_INSTALLATION_KEY must be 32 random bytes .*\(got "\*\*\*"\)$/);
  });

  it("reads a key as 64 hex digits or base64, nothing else", () => {
    expect(decodeKey32(key.toString("hex"))?.equals(key)).toBe(true);
    expect(decodeKey32(key.toString("base64"))?.equals(key)).toBe(true);
    expect(decodeKey32(key.toString("base64url"))?.equals(key)).toBe(true);
    expect(decodeKey32("not a key")).toBeUndefined();
    expect(decodeKey32(randomBytes(31).toString("hex"))).toBeUndefined();
  });

  it("asks at install for the manifest's bot scopes", () => {
    const manifest = parse(readFileSync(new URL("../../../manifest.yml", import.meta.url), "utf8")) as {
      oauth_config: { scopes: { bot: string[] }; redirect_urls: string[] };
    };
    expect(BOT_SCOPES).toEqual(manifest.oauth_config.scopes.bot);
    expect(manifest.oauth_config.redirect_urls).toEqual(["https://hermes.example.com/slack/oauth_redirect"]);
  });
});
