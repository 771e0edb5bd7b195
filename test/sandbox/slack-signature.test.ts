import { readFileSync } from "node:fs";
import { isValidSlackRequest, verifySlackRequest } from "@slack/bolt";
import { describe, expect, it } from "vitest";
import { signSlackRequest } from "../../src/sandbox/slack-signature.ts";

const FIXTURES = new URL("../../../shared/fixtures/slack/", import.meta.url);
const signingSecret = "8f742231b10e8888abcd99yyyzzz85a5";

function boltAccepts(
  body: string,
  headers: ReturnType<typeof signSlackRequest>,
  secret = signingSecret,
): boolean {
  return isValidSlackRequest({
    signingSecret: secret,
    body,
    headers: {
      "x-slack-signature": headers["x-slack-signature"],
      "x-slack-request-timestamp": Number(headers["x-slack-request-timestamp"]),
    },
  });
}

describe("signSlackRequest", () => {
  it("matches Slack's documented example signature", () => {
    // The example from Slack's "Verifying requests from Slack" guide.
    const body =
      "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
    expect(signSlackRequest({ signingSecret, body, timestamp: 1531420618 })).toEqual({
      "x-slack-signature": "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503",
      "x-slack-request-timestamp": "1531420618",
    });
  });

  // The fixtures live beside the repository (../shared), as in CI.
  it("signs the fixtures so that Bolt's own verification accepts them", () => {
    for (const name of ["app_mention.json", "block_actions_approve.json", "slash_command_audit.txt"]) {
      const body = readFileSync(new URL(name, FIXTURES), "utf8");
      const headers = signSlackRequest({ signingSecret, body });
      expect(() =>
        verifySlackRequest({
          signingSecret,
          body,
          headers: {
            "x-slack-signature": headers["x-slack-signature"],
            "x-slack-request-timestamp": Number(headers["x-slack-request-timestamp"]),
          },
        }),
      ).not.toThrow();
    }
  });

  it("is refused by Bolt with another secret, another body or a timestamp over 5 minutes old", () => {
    const body = '{"type":"event_callback"}';
    expect(boltAccepts(body, signSlackRequest({ signingSecret, body }), "other-secret")).toBe(false);
    expect(boltAccepts(`${body} `, signSlackRequest({ signingSecret, body }))).toBe(false);
    const old = Math.floor(Date.now() / 1000) - 6 * 60;
    expect(boltAccepts(body, signSlackRequest({ signingSecret, body, timestamp: old }))).toBe(false);
  });
});
