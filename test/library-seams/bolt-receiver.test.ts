import { App, type Receiver, type ReceiverEvent, SocketModeReceiver } from "@slack/bolt";
import { describe, expect, it } from "vitest";
import { quietSlackLogger } from "../helpers/slack.ts";
import { installedVersion } from "./installed-version.ts";

/**
 * What Hermes' receivers (`slack/hermes-receiver.ts`, `slack/socket-mode-intake.ts`) rely on in Bolt,
 * against the installed version: a version bump that changes any of it fails here.
 */

class NullReceiver implements Receiver {
  app: App | undefined;
  init(app: App) {
    this.app = app;
  }
  async start() {}
  async stop() {}
}

function boltApp(receiver: Receiver): App {
  return new App({
    token: "xoxb-seam",
    receiver,
    logger: quietSlackLogger(),
    botId: "B0SEAM",
    botUserId: "U0SEAM",
    tokenVerificationEnabled: false,
  });
}

const mention = {
  type: "event_callback",
  team_id: "T0SEAM",
  event_id: "Ev0SEAM",
  event: { type: "app_mention", user: "U0USER", channel: "C0SEAM", text: "hi", ts: "1.000001" },
};

const click = {
  type: "block_actions",
  team: { id: "T0SEAM" },
  user: { id: "U0USER" },
  channel: { id: "C0SEAM" },
  actions: [{ action_id: "seam.click", block_id: "b", value: "v" }],
};

describe(`Bolt ${installedVersion("@slack/bolt")} as Hermes' receivers use it`, () => {
  it("is the version these seams were read from", () => {
    expect(installedVersion("@slack/bolt")).toBe("5.1.0");
  });

  it("a custom receiver is given the App at construction, without socketMode", () => {
    const receiver = new NullReceiver();
    const app = boltApp(receiver);
    expect(receiver.app).toBe(app);
  });

  it("App.processEvent acks an Events API callback before its middleware runs (why events are recorded first)", async () => {
    const app = boltApp(new NullReceiver());
    const order: string[] = [];
    app.use(async ({ next }) => {
      order.push("middleware");
      await next();
    });
    await app.processEvent({ body: mention, ack: async () => void order.push("ack") });
    expect(order).toEqual(["ack", "middleware"]);
  });

  it("a click's listener gets the receiver's ack, customProperties reach the context, and a listener's throw goes to app.error", async () => {
    const app = boltApp(new NullReceiver());
    const seen: unknown[] = [];
    const errors: unknown[] = [];
    app.error(async (err) => void errors.push(err.message));
    app.action("seam.click", async ({ ack, context }) => {
      await ack();
      seen.push(context.hermesBodySha256);
      throw new Error("listener failed");
    });
    let acked = 0;
    const event: ReceiverEvent = {
      body: click,
      ack: async () => void acked++,
      customProperties: { hermesBodySha256: "abc" },
    };
    await expect(app.processEvent(event)).resolves.toBeUndefined();
    expect(acked).toBe(1);
    expect(seen).toEqual(["abc"]);
    expect(errors).toEqual(["listener failed"]);
  });

  it("SocketModeReceiver hands each envelope to processEvent of the app given to init, with the envelope's ack", async () => {
    const socket = new SocketModeReceiver({ appToken: "xapp-seam", logger: quietSlackLogger() });
    const app = boltApp(new NullReceiver());
    const got: ReceiverEvent[] = [];
    socket.init(
      new Proxy(app, {
        get: (target, key, receiver) =>
          key === "processEvent"
            ? async (event: ReceiverEvent) => void got.push(event)
            : Reflect.get(target, key, receiver),
      }),
    );
    let envelopeAcks = 0;
    socket.client.emit("slack_event", {
      body: mention,
      ack: async () => void envelopeAcks++,
      retry_num: 1,
      retry_reason: "timeout",
    });
    await expect.poll(() => got.length).toBe(1);
    expect(got[0]).toMatchObject({ body: mention, retryNum: 1, retryReason: "timeout" });
    await got[0]?.ack();
    expect(envelopeAcks).toBe(1);
  });
});
