import type { WebAPIPlatformError } from "@slack/web-api";
import { describe, expect, it } from "vitest";
import { blockActionsPayload, findButton } from "../../src/sandbox/interaction-payloads.ts";
import { DEMO } from "../../src/sandbox/seed-demo-workspace.ts";
import { validateBlocks } from "../../src/sandbox/validate-blocks.ts";
import { FEEDBACK_ACTION_ID, feedbackBlock } from "../../src/slack/feedback-block.ts";
import { sandboxWebClient, startSlackEmulator } from "../helpers/slack.ts";

const plain = (text: string) => ({ type: "plain_text", text });
const side = (extra: Record<string, unknown> = {}) => ({ text: plain("👍"), value: "up:run_1", ...extra });
const feedback = (extra: Record<string, unknown> = {}) => ({
  type: "feedback_buttons",
  action_id: "f",
  positive_button: side(),
  negative_button: side({ text: plain("👎"), value: "down:run_1" }),
  ...extra,
});
const icon = (extra: Record<string, unknown> = {}) => ({
  type: "icon_button",
  action_id: "i",
  icon: "trash",
  text: plain("Delete"),
  ...extra,
});
const contextActions = (...elements: unknown[]) => ({ type: "context_actions", elements });
const errorsOf = (blocks: unknown[]) => validateBlocks(blocks, { maxBlocks: 50 }).join("\n");

describe("context_actions blocks (feedback_buttons, icon_button)", () => {
  it("accepts Hermes's feedback block and an icon button beside feedback buttons", () => {
    expect(validateBlocks([feedbackBlock("run_abc")], { maxBlocks: 50 })).toEqual([]);
    expect(validateBlocks([contextActions(feedback(), icon())], { maxBlocks: 50 })).toEqual([]);
  });

  const cases: Array<[string, unknown[], string]> = [
    [
      "more than 5 elements",
      [contextActions(...Array.from({ length: 6 }, (_, i) => icon({ action_id: `i${i}` })))],
      "no more than 5 items allowed [json-pointer:/blocks/0/elements]",
    ],
    ["no elements", [contextActions()], "must provide at least 1 element [json-pointer:/blocks/0/elements]"],
    [
      "a plain button",
      [contextActions({ type: "button", action_id: "b", text: plain("Go") })],
      "unsupported element type: button [json-pointer:/blocks/0/elements/0/type]",
    ],
    [
      "feedback text over 75",
      [contextActions(feedback({ positive_button: side({ text: plain("x".repeat(76)) }) }))],
      "must be less than 76 characters [json-pointer:/blocks/0/elements/0/positive_button/text/text]",
    ],
    [
      "feedback text in mrkdwn",
      [contextActions(feedback({ negative_button: side({ text: { type: "mrkdwn", text: "no" } }) }))],
      "must be one of: plain_text (got mrkdwn) [json-pointer:/blocks/0/elements/0/negative_button/text/type]",
    ],
    [
      "feedback value over 2000",
      [contextActions(feedback({ positive_button: side({ value: "v".repeat(2001) }) }))],
      "must be less than 2001 characters [json-pointer:/blocks/0/elements/0/positive_button/value]",
    ],
    [
      "accessibility label over 75",
      [contextActions(feedback({ positive_button: side({ accessibility_label: "a".repeat(76) }) }))],
      "must be less than 76 characters [json-pointer:/blocks/0/elements/0/positive_button/accessibility_label]",
    ],
    [
      "a missing negative button",
      [contextActions(feedback({ negative_button: undefined }))],
      "missing required field: negative_button [json-pointer:/blocks/0/elements/0/negative_button]",
    ],
    [
      "a feedback button without a value",
      [contextActions(feedback({ positive_button: { text: plain("👍") } }))],
      "missing required field: value [json-pointer:/blocks/0/elements/0/positive_button/value]",
    ],
    [
      "an icon button without an icon",
      [contextActions(icon({ icon: undefined }))],
      "missing required field: icon [json-pointer:/blocks/0/elements/0/icon]",
    ],
    [
      "duplicate action_ids",
      [contextActions(feedback(), feedback())],
      "duplicate action_id: f [json-pointer:/blocks/0/elements/1/action_id]",
    ],
  ];

  it.each(cases)("refuses %s", (_name, blocks, expected) => {
    expect(errorsOf(blocks)).toContain(expected);
  });

  it("chat.postMessage answers invalid_blocks in Slack's shape and posts a valid feedback block", async () => {
    const emulator = await startSlackEmulator();
    try {
      const client = sandboxWebClient(emulator);
      const err = (await client.chat
        .postMessage({
          channel: DEMO.ops,
          text: "t",
          blocks: [contextActions(feedback({ positive_button: side({ value: "v".repeat(2001) }) }))] as never,
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        )) as WebAPIPlatformError | undefined;
      const pointer = "[json-pointer:/blocks/0/elements/0/positive_button/value]";
      expect(err?.data).toMatchObject({
        ok: false,
        error: "invalid_blocks",
        errors: [`must be less than 2001 characters ${pointer}`],
        response_metadata: { messages: [`[ERROR] must be less than 2001 characters ${pointer}`] },
      });
      const posted = await client.chat.postMessage({
        channel: DEMO.ops,
        text: "answer",
        blocks: [{ type: "section", text: { type: "mrkdwn", text: "answer" } }, feedbackBlock("run_abc")],
      });
      expect(posted.ok).toBe(true);
      const stored = emulator.workspace.getMessage(DEMO.ops, posted.ts!);
      expect(stored?.blocks?.at(-1)).toMatchObject({ type: "context_actions" });
    } finally {
      await emulator.stop();
    }
  });

  it("a click on one side is sent as Bolt's FeedbackButtonsAction: that side's value and text", () => {
    const blocks = [feedbackBlock("run_abc")];
    const clicked = findButton(blocks, FEEDBACK_ACTION_ID, "down:run_abc");
    expect(clicked).toEqual({
      actionId: FEEDBACK_ACTION_ID,
      blockId: "hermes.feedback.run_abc",
      type: "feedback_buttons",
      value: "down:run_abc",
      text: "👎",
    });
    expect(findButton(blocks, FEEDBACK_ACTION_ID, "sideways:run_abc")).toBeUndefined();
    const payload = blockActionsPayload(
      { teamId: "T0001", apiAppId: "A0HERMES1", botUserId: "U0HERMES", verificationToken: "v" },
      {
        user: { id: DEMO.user, name: "li.ming" },
        teamDomain: "acme",
        channel: { id: DEMO.ops, name: "ops" },
        message: { ts: "1.000001", blocks },
        messageTs: "1.000001",
        isEphemeral: false,
        action: clicked!,
        actionTs: "2.000002",
        responseUrl: "http://x/response",
        triggerId: "t",
      },
    );
    expect((payload.actions as unknown[])[0]).toEqual({
      action_id: FEEDBACK_ACTION_ID,
      block_id: "hermes.feedback.run_abc",
      text: { type: "plain_text", text: "👎", emoji: true },
      value: "down:run_abc",
      type: "feedback_buttons",
      action_ts: "2.000002",
    });
  });
});
