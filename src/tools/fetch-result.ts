import { z } from "zod";
import { HermesError } from "../core/errors.ts";
import { defineTool } from "./define-tool.ts";
import type { ResultStore } from "./result-store.ts";

const PAGE = 3000;

/** Pages through a full tool result that was capped in the conversation. Only results of this session. */
export const fetchResult = (results: ResultStore) =>
  defineTool({
    name: "fetch_result",
    description: `Read part of a tool result that was cut short. Give the ref from the cut marker; offset and length are characters (default length ${PAGE}).`,
    level: "viewer",
    idempotent: true,
    maxResultChars: PAGE + 200,
    input: z.object({
      ref: z.string().min(1),
      offset: z.number().int().min(0).optional(),
      length: z.number().int().min(1).max(PAGE).optional(),
    }),
    execute: async ({ ref, offset = 0, length = PAGE }, ctx) => {
      const stored = await results.get(ref);
      if (!stored || stored.sessionKey !== ctx.run.sessionKey) {
        throw new HermesError("not_found", `No stored result with ref "${ref}" in this conversation.`);
      }
      const total = stored.content.length;
      if (offset >= total) {
        throw new HermesError(
          "bad_request",
          `Offset ${offset} is past the end; the result has ${total} characters.`,
        );
      }
      const end = Math.min(total, offset + length);
      const more = end < total ? ` Next: offset=${end}.` : " This is the end.";
      return `[${stored.tool} result, characters ${offset}–${end} of ${total}.${more}]\n${stored.content.slice(offset, end)}`;
    },
  });
