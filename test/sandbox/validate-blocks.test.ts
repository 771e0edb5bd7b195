import { describe, expect, it } from "vitest";
import { validateBlocks } from "../../src/sandbox/validate-blocks.ts";
import { approvalCardBlocks } from "../helpers/slack.ts";

const section = (text: string) => ({ type: "section", text: { type: "mrkdwn", text } });
const button = (extra: Record<string, unknown> = {}) => ({
  type: "button",
  action_id: "a",
  text: { type: "plain_text", text: "Go" },
  ...extra,
});
const actions = (...elements: unknown[]) => ({ type: "actions", elements });
const confirm = (extra: Record<string, unknown> = {}) => ({
  title: { type: "plain_text", text: "Sure?" },
  text: { type: "plain_text", text: "Really." },
  confirm: { type: "plain_text", text: "Yes" },
  deny: { type: "plain_text", text: "No" },
  ...extra,
});
const plain = (text: string) => ({ type: "plain_text", text });

describe("validateBlocks", () => {
  it("accepts an approval card and every supported block type", () => {
    const blocks = [
      ...approvalCardBlocks(),
      { type: "header", text: plain("h".repeat(150)) },
      {
        type: "context",
        elements: [
          { type: "mrkdwn", text: "ctx" },
          { type: "image", image_url: "http://x/i.png", alt_text: "i" },
        ],
      },
      { type: "divider" },
      { type: "image", image_url: "http://x/c.png", alt_text: "chart", title: plain("Chart") },
      { type: "rich_text", elements: [] },
      { type: "input", label: plain("Why"), element: { type: "plain_text_input", action_id: "why" } },
      { type: "markdown", text: "**bold**" },
      {
        type: "section",
        fields: Array.from({ length: 10 }, () => ({ type: "mrkdwn", text: "f".repeat(2000) })),
      },
      {
        ...section("s".repeat(3000)),
        accessory: { type: "overflow", action_id: "o", options: [{ text: plain("x"), value: "x" }] },
      },
      actions({
        type: "static_select",
        action_id: "s",
        placeholder: plain("pick"),
        options: [{ text: plain("a"), value: "a" }],
      }),
      actions({ type: "datepicker", action_id: "d", initial_date: "2025-01-31" }),
    ];
    expect(validateBlocks(blocks, { maxBlocks: 50 })).toEqual([]);
  });

  const cases: Array<[string, unknown[], string, number?]> = [
    [
      "more than 50 blocks",
      Array.from({ length: 51 }, () => ({ type: "divider" })),
      "no more than 50 items allowed [json-pointer:/blocks]",
    ],
    [
      "section text > 3000",
      [section("x".repeat(3001))],
      "must be less than 3001 characters [json-pointer:/blocks/0/text/text]",
    ],
    [
      "header text > 150",
      [{ type: "header", text: plain("x".repeat(151)) }],
      "must be less than 151 characters",
    ],
    [
      "header with mrkdwn",
      [{ type: "header", text: { type: "mrkdwn", text: "x" } }],
      "must be one of: plain_text",
    ],
    [
      "more than 10 fields",
      [{ type: "section", fields: Array.from({ length: 11 }, () => plain("f")) }],
      "no more than 10 items allowed [json-pointer:/blocks/0/fields]",
    ],
    [
      "field > 2000",
      [{ type: "section", fields: [plain("x".repeat(2001))] }],
      "must be less than 2001 characters [json-pointer:/blocks/0/fields/0/text]",
    ],
    ["section without text or fields", [{ type: "section" }], "must provide either text or fields"],
    ["empty text", [section("")], "must be more than 0 characters"],
    [
      "button text > 75",
      [actions(button({ text: plain("x".repeat(76)) }))],
      "must be less than 76 characters [json-pointer:/blocks/0/elements/0/text/text]",
    ],
    [
      "button value > 2000",
      [actions(button({ value: "v".repeat(2001) }))],
      "must be less than 2001 characters [json-pointer:/blocks/0/elements/0/value]",
    ],
    [
      "action_id > 255",
      [actions(button({ action_id: "a".repeat(256) }))],
      "must be less than 256 characters [json-pointer:/blocks/0/elements/0/action_id]",
    ],
    ["duplicate action_id in a block", [actions(button(), button())], "duplicate action_id: a"],
    [
      "block_id > 255",
      [{ type: "divider", block_id: "b".repeat(256) }],
      "must be less than 256 characters [json-pointer:/blocks/0/block_id]",
    ],
    [
      "duplicate block_id",
      [
        { type: "divider", block_id: "b" },
        { type: "divider", block_id: "b" },
      ],
      "duplicate block_id: b [json-pointer:/blocks/1/block_id]",
    ],
    ["unknown block type", [{ type: "carousel" }], "unsupported block type: carousel"],
    [
      "unknown element type",
      [actions({ type: "slider", action_id: "s" })],
      "unsupported element type: slider",
    ],
    [
      "image element in actions",
      [actions({ type: "image", image_url: "http://x", alt_text: "x" })],
      "unsupported element type: image",
    ],
    [
      "confirm title > 100",
      [actions(button({ confirm: confirm({ title: plain("t".repeat(101)) }) }))],
      "must be less than 101 characters [json-pointer:/blocks/0/elements/0/confirm/title/text]",
    ],
    [
      "confirm text > 300",
      [actions(button({ confirm: confirm({ text: plain("t".repeat(301)) }) }))],
      "must be less than 301 characters [json-pointer:/blocks/0/elements/0/confirm/text/text]",
    ],
    [
      "confirm label > 30",
      [actions(button({ confirm: confirm({ confirm: plain("c".repeat(31)) }) }))],
      "must be less than 31 characters [json-pointer:/blocks/0/elements/0/confirm/confirm/text]",
    ],
    [
      "deny label > 30",
      [actions(button({ confirm: confirm({ deny: plain("d".repeat(31)) }) }))],
      "[json-pointer:/blocks/0/elements/0/confirm/deny/text]",
    ],
    [
      "button style",
      [actions(button({ style: "warning" }))],
      "must be a valid enum value (primary, danger) [json-pointer:/blocks/0/elements/0/style]",
    ],
    [
      "confirm style",
      [actions(button({ confirm: confirm({ style: "green" }) }))],
      "[json-pointer:/blocks/0/elements/0/confirm/style]",
    ],
    [
      "image without alt_text",
      [{ type: "image", image_url: "http://x" }],
      "missing required field: alt_text",
    ],
    [
      "markdown > 12000",
      [{ type: "markdown", text: "m".repeat(12_001) }],
      "must be less than 12001 characters",
    ],
    [
      "block without type",
      [{ text: plain("x") }],
      "missing required field: type [json-pointer:/blocks/0/type]",
    ],
    [
      "more than 100 blocks in a view",
      Array.from({ length: 101 }, () => ({ type: "divider" })),
      "no more than 100 items allowed",
      100,
    ],
  ];

  it.each(cases)("refuses %s", (_name, blocks, expected, maxBlocks = 50) => {
    const errors = validateBlocks(blocks, { maxBlocks });
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.join("\n")).toContain(expected);
  });

  it("allows 100 blocks in a view and the same action_id in different blocks", () => {
    expect(
      validateBlocks(
        Array.from({ length: 100 }, () => ({ type: "divider" })),
        { maxBlocks: 100 },
      ),
    ).toEqual([]);
    expect(validateBlocks([actions(button()), actions(button())], { maxBlocks: 50 })).toEqual([]);
  });
});
