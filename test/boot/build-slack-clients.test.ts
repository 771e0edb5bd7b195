import { describe, expect, it } from "vitest";
import { prepareSlackTarget } from "../../src/boot/build-slack-clients.ts";
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/core/logger.ts";

describe("the Slack target", () => {
  it("HTTP mode: the bot token and signing secret, at SLACK_API_URL when set; no sandbox", async () => {
    const config = loadConfig({
      SLACK_BOT_TOKEN: "xoxb-1",
      SLACK_SIGNING_SECRET: "s",
      SLACK_API_URL: "http://127.0.0.1:9/api/",
    });
    expect(await prepareSlackTarget(config, silentLogger())).toEqual({
      target: { botToken: "xoxb-1", signingSecret: "s", slackApiUrl: "http://127.0.0.1:9/api/" },
    });
  });

  it("Socket Mode: the bot and app-level tokens", async () => {
    const config = loadConfig({ SLACK_BOT_TOKEN: "xoxb-1", SLACK_APP_TOKEN: "xapp-1" });
    expect(await prepareSlackTarget(config, silentLogger())).toEqual({
      target: { botToken: "xoxb-1", appToken: "xapp-1" },
    });
  });
});
