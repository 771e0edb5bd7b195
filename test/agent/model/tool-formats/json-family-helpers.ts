import { expect } from "vitest";
import type {
  FormatMatch,
  ToolFormat,
  ToolFormatContext,
} from "../../../../src/agent/model/tool-formats/types.ts";
import { threadCpuMs } from "../../../security/adversarial-strings.ts";

/** The tools offered in these tests: bare formats claim only calls to these names. */
export const TOOL_NAMES = ["get_weather", "create_ticket", "search_tickets", "get_current_time"];

export const ctx: ToolFormatContext = {
  schemaOf: () => undefined,
  isToolName: (name) => TOOL_NAMES.includes(name),
};

/** What the normalizer would get from one format: undefined unless it detects and parses the text. */
export function read(format: ToolFormat, text: string): FormatMatch | undefined {
  return format.detect(text) ? format.parse(text, ctx) : undefined;
}

/** The arguments of a call as a value, whether the format returned JSON text or an object. */
export function args(value: string | Record<string, unknown>): unknown {
  return typeof value === "string" ? JSON.parse(value) : value;
}

/**
 * Runs a format over hostile text and checks it returns well inside the bound (2 s is a hang
 * detector, not a performance budget: the real cost is milliseconds). Counted in this thread's CPU
 * time, which a super-linear parse burns and a busy machine's descheduling does not.
 */
export function survives(format: ToolFormat, text: string): FormatMatch | undefined {
  const started = threadCpuMs();
  const result = format.detect(text) ? format.parse(text, ctx) : undefined;
  expect(threadCpuMs() - started).toBeLessThan(2000);
  return result;
}

/** Each call's name and whether it is complete, as one format reads the text ([] when it reads none). */
export function completeness(format: ToolFormat, text: string): Array<[string, boolean]> {
  return (read(format, text)?.calls ?? []).map((c) => [c.name, c.complete]);
}
