import { mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { App } from "@slack/bolt";
import type { Browser, Locator } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEventsSender } from "../../src/sandbox/events-sender.ts";
import { seedDemoWorkspace } from "../../src/sandbox/seed-demo-workspace.ts";
import { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import { createSandboxWeb, type SandboxWeb } from "../../src/sandbox/web/sandbox-web.ts";
import { createWorkObjectSender } from "../../src/sandbox/work-object-events.ts";
import { ticketActionButtons } from "../../src/slack/work-objects/ticket-actions.ts";
import { ticketEntity } from "../../src/slack/work-objects/ticket-entity.ts";
import { ticketLinks } from "../../src/slack/work-objects/ticket-links.ts";
import { PROCESS_TEST_TIMEOUT_MS } from "../helpers/child-process.ts";
import { launchChromium } from "../helpers/chromium.ts";
import { quietSlackLogger, sandboxWebClient } from "../helpers/slack.ts";

const ARTIFACTS = "test-artifacts";
const SECRET = "work-objects-page-secret";
const links = ticketLinks();
const TICKET = {
  id: 42,
  title: "VPN down on floor 3",
  status: "open",
  priority: "high",
  assignee: null,
  createdBy: "U0USER1",
  description: "Nobody on 3F can reach the VPN since 9:00.",
};

let server: Server;
let origin = "";
let web: SandboxWeb | undefined;
let emulator: SlackApiEmulator | undefined;
let bot: App;
let browser: Browser;
const clicks: Array<{ user: string; actionId: string }> = [];

/** The page, the emulator and a stand-in app that presents a ticket's details as Hermes does. */
beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  const workspace = seedDemoWorkspace();
  server = createServer((req, res) => {
    void (async () => {
      if (await web?.handle(req, res)) return;
      if (await emulator?.handle(req, res)) return;
      res.writeHead(404).end("not found");
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  emulator = new SlackApiEmulator({ workspace, publicOrigin: origin });
  bot = new App({
    token: "xoxb-test",
    signingSecret: SECRET,
    clientOptions: { slackApiUrl: emulator.url, retryConfig: { retries: 0 } },
    logger: quietSlackLogger(),
  });
  bot.event("entity_details_requested", async ({ event, client }) => {
    const actions = ticketActionButtons(TICKET, event.user, { channel: event.channel });
    await client.entity.presentDetails({
      trigger_id: event.trigger_id,
      metadata: ticketEntity(TICKET, links, { actions }),
    });
  });
  bot.action(/^hermes\.ticket\./, async ({ ack, body, action }) => {
    await ack();
    clicks.push({ user: body.user.id, actionId: (action as { action_id: string }).action_id });
  });
  const started = await bot.start(0);
  const botUrl = `http://127.0.0.1:${(started.address() as AddressInfo).port}/slack/events`;
  web = createSandboxWeb({
    workspace,
    sender: createEventsSender({ url: botUrl, signingSecret: SECRET, slack: emulator }),
    workObjects: createWorkObjectSender({ url: botUrl, signingSecret: SECRET, slack: emulator }),
    admins: ["U0ADMIN"],
    modelInfo: "Model: scripted-test-model",
  });
  await sandboxWebClient(emulator).chat.postMessage({
    channel: "C0OPS",
    text: "I opened ticket #42 for you.",
    metadata: {
      event_type: "hermes_run",
      event_payload: { run_id: "run-1" },
      entities: [ticketEntity(TICKET, links)],
    },
  });
  browser = await launchChromium();
}, PROCESS_TEST_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await bot?.stop();
  web?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

const visible = (l: Locator) => l.waitFor({ state: "visible", timeout: 30_000 });

describe("a ticket as a Work Object in the sandbox page", () => {
  it("shows the card, opens its detail panel with the app's buttons, and sends a click to the app", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, reducedMotion: "reduce" });
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(e.message));
    await page.goto(`${origin}/?as=U0ADMIN#C0OPS`);
    const card = page.getByRole("region", { name: /Ticket #42: VPN down on floor 3/ });
    await visible(card);
    expect(await card.textContent()).toContain("Priority: high");

    await card.getByRole("button", { name: "Open details" }).click();
    const panel = page.getByRole("dialog", { name: /Details of #42/ });
    await visible(panel);
    expect(await panel.textContent()).toContain("Nobody on 3F can reach the VPN");
    const actions = panel.getByRole("group", { name: "Actions" });
    expect(await actions.getByRole("button").allInnerTexts()).toEqual([
      "Assign to me",
      "Start work",
      "Close",
    ]);
    await page.screenshot({ path: `${ARTIFACTS}/work-object-detail-panel.png` });

    await actions.getByRole("button", { name: "Close" }).click();
    await visible(panel.getByRole("status"));
    for (const until = Date.now() + 30_000; clicks.length === 0 && Date.now() < until; )
      await new Promise((r) => setTimeout(r, 20));
    expect(clicks).toEqual([{ user: "U0ADMIN", actionId: "hermes.ticket.close" }]);
    expect(problems).toEqual([]);
    await page.close();
  });
});
