import type { WebClient } from "@slack/web-api";
import { afterEach, describe, expect, it } from "vitest";
import { modalsOf, TRIGGER_TTL_MS } from "../../../src/sandbox/modals.ts";
import { DEMO, seedDemoWorkspace } from "../../../src/sandbox/seed-demo-workspace.ts";
import type { SlackApiEmulator } from "../../../src/sandbox/slack-api-server.ts";
import { sandboxWebClient, startSlackEmulator } from "../../helpers/slack.ts";

let emulator: SlackApiEmulator;
let client: WebClient;
let clock = 1_764_420_000_000;
afterEach(() => emulator.stop());

const modal = (blocks: unknown[], submit = true) => ({
  type: "modal" as const,
  callback_id: "hermes.test",
  title: { type: "plain_text" as const, text: "A modal" },
  ...(submit ? { submit: { type: "plain_text" as const, text: "Save" } } : {}),
  blocks: blocks as never,
});
const input = {
  type: "input",
  block_id: "name",
  label: { type: "plain_text", text: "Name" },
  element: { type: "plain_text_input", action_id: "value" },
};

/** The emulator's `views.open`: a modal for a trigger id its interactions handed out, as Slack checks it. */
describe("views.open in the Slack emulator", () => {
  it("opens a modal for a fresh trigger id once; a used, unknown or expired one is refused", async () => {
    emulator = await startSlackEmulator({ workspace: seedDemoWorkspace({ now: () => clock }) });
    client = sandboxWebClient(emulator);
    const modals = modalsOf(emulator.workspace);
    modals.issueTrigger("trig-1", DEMO.admin);
    const opened = await client.views.open({ trigger_id: "trig-1", view: modal([input]) });
    expect(opened.view).toMatchObject({ type: "modal", callback_id: "hermes.test", team_id: DEMO.team });
    expect(modals.ofUser(DEMO.admin).map((m) => m.id)).toEqual([opened.view?.id]);
    await expect(client.views.open({ trigger_id: "trig-1", view: modal([input]) })).rejects.toMatchObject({
      data: { error: "exchanged_trigger_id" },
    });
    await expect(client.views.open({ trigger_id: "made-up", view: modal([input]) })).rejects.toMatchObject({
      data: { error: "invalid_trigger_id" },
    });
    modals.issueTrigger("trig-2", DEMO.admin);
    clock += TRIGGER_TTL_MS + 1;
    await expect(client.views.open({ trigger_id: "trig-2", view: modal([input]) })).rejects.toMatchObject({
      data: { error: "expired_trigger_id" },
    });
  });

  it("refuses a modal Slack would refuse: input blocks without submit, a long title, bad blocks", async () => {
    emulator = await startSlackEmulator({ workspace: seedDemoWorkspace({ now: () => clock }) });
    client = sandboxWebClient(emulator);
    const modals = modalsOf(emulator.workspace);
    const refused = async (view: Record<string, unknown>) => {
      modals.issueTrigger("t", DEMO.admin);
      const err = await client.views.open({ trigger_id: "t", view: view as never }).catch((e: unknown) => e);
      return (err as { data?: { error?: string; response_metadata?: { messages?: string[] } } }).data;
    };
    expect((await refused(modal([input], false)))?.response_metadata?.messages).toEqual([
      "[ERROR] must provide a submit property when using input blocks [json-pointer:/view]",
    ]);
    expect(
      (await refused({ ...modal([input]), title: { type: "plain_text", text: "x".repeat(25) } }))?.error,
    ).toBe("invalid_arguments");
    expect((await refused(modal([{ type: "input", block_id: "x" }])))?.error).toBe("invalid_arguments");
    expect(modals.ofUser(DEMO.admin)).toEqual([]);
  });
});
