import { expect } from "vitest";
import type { ToolFormat } from "../../../../src/agent/model/tool-formats/types.ts";
import { completeness, read } from "./json-family-helpers.ts";

/**
 * The rule every "marker, then JSON" format keeps: its markers inside a JSON string are text (the
 * call reads whole), and a marker outside the strings ends broken JSON there, unfinished (never
 * repaired into a call). `close` is "" for formats without a close marker.
 */
export function expectMarkersInJsonRule(format: ToolFormat, open: string, close: string, key = "arguments") {
  const title = `wrap calls in ${open} and ${close} tags, then reboot`;
  const whole = read(
    format,
    `${open}{"name": "create_ticket", "${key}": {"title": ${JSON.stringify(title)}}}${close}`,
  );
  expect(whole?.calls).toEqual([{ name: "create_ticket", arguments: { title }, complete: true }]);
  expect(whole?.prose).toBe("");
  const broken = `${open}{"name": "create_ticket", "${key}": {"title": "T-1", "urgent": ${close || open}`;
  expect(completeness(format, broken)).toEqual([["create_ticket", false]]);
}

/** A JSON list of calls the output ends inside (cut after a comma) holds no complete call. */
export function expectUnclosedListIncomplete(format: ToolFormat, open: string, key = "arguments") {
  const list = `${open}[{"name": "create_ticket", "${key}": {"title": "a"}}, `;
  expect(completeness(format, list)).toEqual([["create_ticket", false]]);
}
