import type { types } from "@slack/bolt";
import { type Logger, LogLevel, WebClient, type WebClientOptions } from "@slack/web-api";
import { SlackApiEmulator, type SlackApiEmulatorOptions } from "../../src/sandbox/slack-api-server.ts";

/** A started Slack Web API emulator (seeded demo workspace unless told otherwise); stop it in afterEach. */
export async function startSlackEmulator(options: SlackApiEmulatorOptions = {}): Promise<SlackApiEmulator> {
  return new SlackApiEmulator(options).start();
}

/** A logger for `@slack/*` clients that keeps test output clean. */
export function quietSlackLogger(): Logger {
  let level = LogLevel.ERROR;
  const noop = () => {};
  return {
    debug: noop,
    info: noop,
    warn: noop,
    error: noop,
    setLevel: (l: LogLevel) => {
      level = l;
    },
    getLevel: () => level,
    setName: noop,
  };
}

/** The real `WebClient` pointed at the emulator, with no retries unless asked. */
export function sandboxWebClient(
  emulator: SlackApiEmulator,
  options: WebClientOptions & { token?: string } = {},
): WebClient {
  const { token = "xoxb-test", ...rest } = options;
  return new WebClient(token, {
    slackApiUrl: emulator.url,
    retryConfig: { retries: 0 },
    logger: quietSlackLogger(),
    ...rest,
  });
}

/** A valid 1×1 PNG. */
export const TINY_PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);

/** Blocks of a typical Hermes approval card (docs/architecture.md, "Contracts"), valid for Slack. */
export function approvalCardBlocks(approvalId = "ap_1"): types.KnownBlock[] {
  return [
    {
      type: "section",
      block_id: `req-${approvalId}`,
      text: { type: "mrkdwn", text: "*send_message* needs approval" },
    },
    {
      type: "actions",
      block_id: `approval-${approvalId}`,
      elements: [
        {
          type: "button",
          action_id: "hermes.approve",
          style: "primary",
          value: approvalId,
          text: { type: "plain_text", text: "Approve", emoji: true },
          confirm: {
            title: { type: "plain_text", text: "Send it?" },
            text: { type: "mrkdwn", text: "This sends a message as Hermes." },
            confirm: { type: "plain_text", text: "Send" },
            deny: { type: "plain_text", text: "Cancel" },
          },
        },
        {
          type: "button",
          action_id: "hermes.reject",
          style: "danger",
          value: approvalId,
          text: { type: "plain_text", text: "Reject", emoji: true },
        },
      ],
    },
  ];
}
