import type { WebClient } from "@slack/web-api";
import { afterEach, describe, expect, it } from "vitest";
import { RESPONSE_URL_TTL_MS } from "../../src/sandbox/response-urls.ts";
import { DEMO, seedDemoWorkspace } from "../../src/sandbox/seed-demo-workspace.ts";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import type { WorkspaceEvent } from "../../src/sandbox/workspace-types.ts";
import { approvalCardBlocks, sandboxWebClient, startSlackEmulator } from "../helpers/slack.ts";

let emulator: SlackApiEmulator;
let client: WebClient;
let clock = 1_764_420_000_000;

async function start() {
  emulator = await startSlackEmulator({ workspace: seedDemoWorkspace({ now: () => clock }) });
  client = sandboxWebClient(emulator);
}
afterEach(() => emulator.stop());

const postJson = (url: string, body: unknown) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("views.publish", () => {
  it("publishes a user's App Home and tells subscribers", async () => {
    await start();
    const events: WorkspaceEvent[] = [];
    emulator.workspace.subscribe((e) => events.push(e));
    const blocks = [
      { type: "header", text: { type: "plain_text", text: "Pending approvals" } },
      ...approvalCardBlocks(),
    ];
    const res = await client.views.publish({
      user_id: DEMO.admin,
      view: { type: "home", blocks: blocks as never },
    });
    expect(res.view).toMatchObject({ type: "home", team_id: DEMO.team, app_id: DEMO.appId, blocks });
    expect(emulator.workspace.getView(DEMO.admin)?.blocks).toEqual(blocks);
    expect(events).toEqual([expect.objectContaining({ type: "view_published", user: DEMO.admin })]);
    // Republishing keeps the view id.
    const again = await client.views.publish({ user_id: DEMO.admin, view: { type: "home", blocks: [] } });
    expect(again.view?.id).toBe(res.view?.id);
  });

  it("allows 100 blocks but not 101, answering invalid_arguments as Slack's views.* do", async () => {
    await start();
    const dividers = (n: number) => Array.from({ length: n }, () => ({ type: "divider" as const }));
    await expect(
      client.views.publish({ user_id: DEMO.user, view: { type: "home", blocks: dividers(100) } }),
    ).resolves.toMatchObject({ ok: true });
    await expect(
      client.views.publish({ user_id: DEMO.user, view: { type: "home", blocks: dividers(101) } }),
    ).rejects.toMatchObject({
      data: {
        error: "invalid_arguments",
        response_metadata: {
          messages: ["[ERROR] no more than 100 items allowed [json-pointer:/view/blocks]"],
        },
      },
    });
  });
});

describe("response_url", () => {
  it("replaces the original message, then posts ephemeral and in-channel answers, then deletes it", async () => {
    await start();
    const card = await client.chat.postMessage({
      channel: DEMO.ops,
      text: "Approval needed",
      blocks: approvalCardBlocks() as never,
    });
    const url = emulator.mintResponseUrl({ channel: DEMO.ops, user: DEMO.user, messageTs: card.ts ?? "" });

    const replaced = await postJson(url, {
      replace_original: true,
      text: "Approved by <@U0ADMIN>",
      blocks: [],
    });
    expect(replaced.status).toBe(200);
    expect(emulator.workspace.getMessage(DEMO.ops, card.ts ?? "")).toMatchObject({
      text: "Approved by <@U0ADMIN>",
      blocks: [],
    });

    await postJson(url, { response_type: "ephemeral", text: "Only you can see this" });
    expect(emulator.workspace.ephemeralMessages(DEMO.ops, DEMO.user).map((m) => m.text)).toEqual([
      "Only you can see this",
    ]);
    await postJson(url, { response_type: "in_channel", text: "Everyone sees this" });
    expect(emulator.workspace.history(DEMO.ops).map((m) => m.text)).toEqual([
      "Approved by <@U0ADMIN>",
      "Everyone sees this",
    ]);

    await postJson(url, { delete_original: true });
    expect(emulator.workspace.getMessage(DEMO.ops, card.ts ?? "")).toBeUndefined();
    // Five uses, then it is spent.
    expect((await postJson(url, { text: "fifth" })).status).toBe(200);
    const sixth = await postJson(url, { text: "again" });
    expect(sixth.status).toBe(404);
    expect(await sixth.json()).toEqual({ ok: false, error: "used_url" });
  });

  it("refuses bad blocks and expires after 30 minutes", async () => {
    await start();
    const url = emulator.mintResponseUrl({ channel: DEMO.ops, user: DEMO.admin });
    const bad = await postJson(url, {
      text: "x",
      blocks: [{ type: "header", text: { type: "plain_text", text: "h".repeat(151) } }],
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ ok: false, error: "invalid_blocks" });
    clock += RESPONSE_URL_TTL_MS + 1;
    const late = await postJson(url, { text: "late" });
    expect(late.status).toBe(404);
    expect(await late.json()).toEqual({ ok: false, error: "expired_url" });
  });
});
