import type { AddressInfo } from "node:net";
import { App } from "@slack/bolt";
import type { WebAPIPlatformError, WebClient } from "@slack/web-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { feedLinkShared } from "../../src/sandbox/link-shared-feed.ts";
import { postAsUser } from "../../src/sandbox/post-as-user.ts";
import { DEMO } from "../../src/sandbox/seed-demo-workspace.ts";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import { createWorkObjectSender, type WorkObjectSender } from "../../src/sandbox/work-object-events.ts";
import { workObjectsOf } from "../../src/sandbox/work-objects-state.ts";
import { quietSlackLogger, sandboxWebClient, startSlackEmulator } from "../helpers/slack.ts";

const signingSecret = "work-objects-secret";
const URL_42 = "https://tickets.example.com/tickets/42";

const task = (url: string, extra: Record<string, unknown> = {}) => ({
  entity_type: "slack#/entities/task",
  url,
  external_ref: { id: "42", type: "ticket" },
  entity_payload: { attributes: { title: { text: "VPN down" } }, fields: { status: { value: "Open" } } },
  ...extra,
});

let emulator: SlackApiEmulator;
let client: WebClient;
let app: App;
let sender: WorkObjectSender;
const clicks: Array<Record<string, unknown>> = [];

async function slackError(call: Promise<unknown>): Promise<string | undefined> {
  const err = (await call.then(
    () => undefined,
    (e: unknown) => e,
  )) as WebAPIPlatformError | undefined;
  return err?.data?.error;
}

async function eventually<T>(find: () => T | undefined): Promise<T> {
  const until = Date.now() + 10_000;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 10));
  }
}

beforeAll(async () => {
  emulator = await startSlackEmulator();
  client = sandboxWebClient(emulator);
  app = new App({
    token: "xoxb-test",
    signingSecret,
    clientOptions: { slackApiUrl: emulator.url, retryConfig: { retries: 0 } },
    logger: quietSlackLogger(),
  });
  app.event("link_shared", async ({ event, client: bolt }) => {
    await bolt.chat.unfurl({
      channel: event.channel,
      ts: event.message_ts,
      metadata: { entities: event.links.map((l) => task(l.url, { app_unfurl_url: l.url })) },
    });
  });
  app.event("entity_details_requested", async ({ event, client: bolt }) => {
    const entity = task(event.entity_url, {
      entity_payload: {
        attributes: { title: { text: "VPN down" } },
        actions: { primary_actions: [{ text: "Close", action_id: "t.close", value: "42" }] },
      },
    });
    await bolt.entity.presentDetails({ trigger_id: event.trigger_id, metadata: entity });
  });
  app.action("t.close", async ({ ack, body }) => {
    await ack();
    clicks.push(body as unknown as Record<string, unknown>);
  });
  const server = await app.start(0);
  const { port } = server.address() as AddressInfo;
  sender = createWorkObjectSender({
    url: `http://127.0.0.1:${port}/slack/events`,
    signingSecret,
    slack: emulator,
  });
});

afterAll(async () => {
  await app?.stop();
  await emulator?.stop();
});

describe("Work Objects in the emulator", () => {
  it("keeps metadata.entities on a posted message", async () => {
    const posted = await client.chat.postMessage({
      channel: DEMO.ops,
      text: "Ticket #42",
      metadata: { event_type: "hermes_run", event_payload: { run_id: "r1" }, entities: [task(URL_42)] },
    });
    const kept = emulator.workspace.getMessage(DEMO.ops, posted.ts!)?.metadata as { entities: unknown[] };
    expect(kept.entities).toEqual([task(URL_42)]);
  });

  it("link_shared → chat.unfurl puts the Work Object on the person's message", async () => {
    const m = postAsUser(emulator.workspace, {
      user: DEMO.user,
      channel: DEMO.ops,
      text: `look <${URL_42}>`,
    });
    const d = await sender.linkShared({ user: DEMO.user, channel: DEMO.ops, messageTs: m.ts });
    expect(d.status).toBe(200);
    expect((d.payload.event as { links: unknown }).links).toEqual([
      { domain: "tickets.example.com", url: URL_42 },
    ]);
    const entities = await eventually(
      () =>
        (emulator.workspace.getMessage(DEMO.ops, m.ts)?.metadata as { entities?: unknown[] } | undefined)
          ?.entities,
    );
    expect(entities).toEqual([task(URL_42, { app_unfurl_url: URL_42 })]);
  });

  it("chat.unfurl answers Slack's errors", async () => {
    const m = postAsUser(emulator.workspace, { user: DEMO.user, channel: DEMO.ops, text: `see ${URL_42}` });
    const unfurl = (args: Record<string, unknown>) =>
      slackError(client.apiCall("chat.unfurl", { channel: DEMO.ops, ts: m.ts, ...args }));
    expect(await unfurl({})).toBe("missing_unfurls");
    expect(await unfurl({ metadata: JSON.stringify({ entities: [task(URL_42)] }) })).toBe("invalid_metadata");
    const other = "https://tickets.example.com/tickets/7";
    expect(await unfurl({ metadata: { entities: [task(other, { app_unfurl_url: other })] } })).toBe(
      "cannot_unfurl_url",
    );
    expect(await unfurl({ metadata: "{not json" })).toBe("invalid_metadata_format");
    expect(
      await slackError(client.apiCall("chat.unfurl", { channel: DEMO.ops, ts: "1.000001", unfurls: {} })),
    ).toBe("cannot_unfurl_message");
    expect(
      await slackError(client.apiCall("chat.unfurl", { unfurl_id: "x", source: "elsewhere", unfurls: {} })),
    ).toBe("invalid_source");
    emulator.scopes.delete("links:write");
    try {
      expect(await unfurl({ metadata: { entities: [task(URL_42, { app_unfurl_url: URL_42 })] } })).toBe(
        "missing_scope",
      );
    } finally {
      emulator.scopes.add("links:write");
    }
    await client.apiCall("chat.unfurl", {
      unfurl_id: `${DEMO.ops}:${m.ts}`,
      source: "conversations_history",
      metadata: { entities: [task(URL_42, { app_unfurl_url: URL_42 })] },
    });
    expect(emulator.workspace.getMessage(DEMO.ops, m.ts)?.metadata).toMatchObject({
      entities: [{ app_unfurl_url: URL_42 }],
    });
  });

  it("entity_details_requested → entity.presentDetails opens the panel; its button clicks come back", async () => {
    const posted = await client.chat.postMessage({
      channel: DEMO.ops,
      text: "Ticket #42",
      metadata: { event_type: "x", event_payload: {}, entities: [task(URL_42)] },
    });
    const d = await sender.entityDetailsRequested({
      user: DEMO.admin,
      channel: DEMO.ops,
      messageTs: posted.ts!,
    });
    expect(d.payload.event).toMatchObject({
      type: "entity_details_requested",
      user: DEMO.admin,
      entity_url: URL_42,
      external_ref: { id: "42", type: "ticket" },
      channel: DEMO.ops,
      message_ts: posted.ts,
    });
    const shown = await eventually(() => workObjectsOf(emulator.workspace).presentedTo(DEMO.admin));
    expect(shown.triggerId).toBe(d.triggerId);
    expect(shown.metadata).toMatchObject({ url: URL_42 });

    const click = await sender.entityAction({ user: DEMO.admin, actionId: "t.close" });
    expect(click.status).toBe(200);
    const body = await eventually(() => clicks[0]);
    expect(body).toMatchObject({
      type: "block_actions",
      user: { id: DEMO.admin },
      container: { type: "entity_detail", entity_url: URL_42 },
      actions: [{ action_id: "t.close", value: "42" }],
    });
  });

  it("entity.presentDetails refuses unknown triggers and entities that are not the trigger's", async () => {
    expect(
      await slackError(client.entity.presentDetails({ trigger_id: "nope", metadata: task(URL_42) })),
    ).toBe("invalid_trigger_id");
    workObjectsOf(emulator.workspace).issueTrigger("t1", {
      user: DEMO.user,
      entityUrl: URL_42,
      externalRef: { id: "42", type: "ticket" },
      issuedAt: emulator.workspace.now(),
    });
    const other = task("https://tickets.example.com/tickets/7", { external_ref: { id: "7" } });
    expect(await slackError(client.entity.presentDetails({ trigger_id: "t1", metadata: other }))).toBe(
      "entity_metadata_does_not_match_trigger",
    );
    expect(
      await slackError(client.apiCall("entity.presentDetails", { trigger_id: "t1", metadata: "{" })),
    ).toBe("invalid_metadata");
    await client.entity.presentDetails({
      trigger_id: "t1",
      error: { status: "custom", custom_message: "Gone" },
    });
    expect(workObjectsOf(emulator.workspace).presentedTo(DEMO.user)?.error).toEqual({
      status: "custom",
      custom_message: "Gone",
    });
  });

  it("a person's links to an unfurl domain reach the app as link_shared; the bot's and other hosts' do not", async () => {
    const shared: string[][] = [];
    const stop = feedLinkShared({
      workspace: emulator.workspace,
      sender: {
        linkShared: async (input) => {
          shared.push(input.links ?? []);
          return sender.linkShared(input);
        },
      },
      domains: ["tickets.example.com"],
      logger: silentLogger(),
    });
    try {
      await client.chat.postMessage({ channel: DEMO.ops, text: `bot says <${URL_42}>` });
      postAsUser(emulator.workspace, {
        user: DEMO.user,
        channel: DEMO.ops,
        text: "see https://example.org/a",
      });
      const m = postAsUser(emulator.workspace, {
        user: DEMO.user,
        channel: DEMO.ops,
        text: `see <${URL_42}> and https://example.org/b`,
      });
      const entities = await eventually(
        () => (emulator.workspace.getMessage(DEMO.ops, m.ts)?.metadata as { entities?: unknown[] })?.entities,
      );
      expect(entities).toHaveLength(1);
      expect(shared).toEqual([[URL_42]]);
    } finally {
      stop();
    }
  });
});
