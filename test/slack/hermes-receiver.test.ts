import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { signSlackRequest } from "../../src/sandbox/slack-signature.ts";
import { createSlackApp, type SlackAppHandle } from "../../src/slack/create-slack-app.ts";

const SECRET = "hermes-receiver-secret";

/**
 * The HTTP receiver on its own (no Slack emulator: nothing here calls the Web API): our routes come
 * first, anything else outside Slack's endpoint is a 404, the handshake is answered here, and a
 * listener's ack, its absence or its failure each end in one 200, never a 500.
 */
describe("HermesReceiver", () => {
  let slack: SlackAppHandle;
  let base: string;
  const recorded: string[] = [];

  beforeAll(async () => {
    slack = createSlackApp({
      botToken: "xoxb-test",
      signingSecret: SECRET,
      logger: silentLogger(),
      bot: { userId: "U0HERMES", botId: "B0HERMES" },
      routes: [
        (req, res) => {
          if (req.url !== "/healthz") return false;
          res.writeHead(200).end("ok");
          return true;
        },
      ],
      events: { record: async (body) => void recorded.push(String(body.event_id)) },
    });
    slack.app.command("/answer", async ({ ack }) => ack("answered in the ack"));
    slack.app.command("/json", async ({ ack }) => ack({ text: "as JSON" }));
    slack.app.command("/throws", async () => {
      throw new Error("before its ack");
    });
    const { port } = await slack.start(0, "127.0.0.1");
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await slack?.stop();
  });

  const signed = (body: string, contentType: string) =>
    fetch(`${base}/slack/events`, {
      method: "POST",
      headers: { "content-type": contentType, ...signSlackRequest({ signingSecret: SECRET, body }) },
      body,
    });
  const command = (name: string) =>
    signed(
      new URLSearchParams({
        command: name,
        text: "",
        user_id: "U0USER",
        channel_id: "C0CHAN",
        team_id: "T0",
      }).toString(),
      "application/x-www-form-urlencoded",
    );

  it("serves our routes, and a JSON 404 for any other path", async () => {
    const health = await fetch(`${base}/healthz`);
    expect([health.status, await health.text()]).toEqual([200, "ok"]);
    const other = await fetch(`${base}/nowhere`);
    expect(other.status).toBe(404);
    expect(await other.json()).toEqual({ ok: false, error: "not_found" });
    const get = await fetch(`${base}/slack/events`);
    expect(get.status).toBe(404);
  });

  it("answers url_verification with its challenge, and refuses an unsigned one", async () => {
    const body = JSON.stringify({ type: "url_verification", challenge: "the-challenge" });
    const res = await signed(body, "application/json");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ challenge: "the-challenge" });
    const unsigned = await fetch(`${base}/slack/events`, { method: "POST", body });
    expect(unsigned.status).toBe(401);
  });

  it("records an Events API callback before its 200", async () => {
    const body = JSON.stringify({
      type: "event_callback",
      event_id: "Ev0RECV",
      team_id: "T0",
      event: { type: "app_mention", user: "U0USER", channel: "C0CHAN", text: "hi", ts: "1.000001" },
    });
    const res = await signed(body, "application/json");
    expect(res.status).toBe(200);
    expect(recorded).toContain("Ev0RECV");
  });

  it("a listener's ack carries its body: text as text, an object as JSON", async () => {
    const text = await command("/answer");
    expect([text.status, await text.text()]).toEqual([200, "answered in the ack"]);
    const json = await command("/json");
    expect(json.headers.get("content-type")).toBe("application/json");
    expect(await json.json()).toEqual({ text: "as JSON" });
  });

  it("a command no listener takes, or whose listener throws before its ack, gets an empty 200", async () => {
    for (const name of ["/nobody", "/throws"]) {
      const res = await command(name);
      expect([res.status, await res.text()]).toEqual([200, ""]);
    }
  });
});
