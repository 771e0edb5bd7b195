import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createAnswerPreview } from "../../../../src/agent/model/streaming/answer-preview.ts";

/**
 * The preview fed piece by piece must show exactly what a preview of the whole text so far shows:
 * `wholeTextPreview` is that rule written over the whole text (every piece re-reads everything), the
 * reference the incremental preview is checked against on random texts cut at random points.
 */

const MARKERS = [
  "<",
  ">",
  "Action:",
  "[",
  "{",
  "`",
  "|",
  "｜",
  "to=functions",
  "assistantfinal",
  "assistantcommentary",
  "functools",
];
const HARMONY_STARTS = ["analysis", "commentary", "final", "assistant"];
const BARE_CLOSES = ["</think>", "</thinking>", "</reasoning>", "[/THINK]"];

function wholeTextPreview(reasoningUntilClose: boolean) {
  let shown = "";
  const showable = (content: string): string => {
    let start = 0;
    if (reasoningUntilClose) {
      let close = -1;
      let closeLength = 0;
      for (const tag of BARE_CLOSES) {
        const at = content.indexOf(tag);
        if (at >= 0 && (close < 0 || at < close)) {
          close = at;
          closeLength = tag.length;
        }
      }
      if (close < 0) return "";
      start = close + closeLength;
    }
    const body = content.slice(start).trimStart();
    const lower = body.slice(0, 12).toLowerCase();
    if (HARMONY_STARTS.some((w) => lower.startsWith(w) || (lower.length < w.length && w.startsWith(lower))))
      return "";
    let end = body.length;
    let markerFound = false;
    for (const m of MARKERS) {
      const at = body.indexOf(m);
      if (at >= 0 && at < end) {
        end = at;
        markerFound = true;
      }
    }
    let text = body.slice(0, end);
    const lastSpace = Math.max(text.lastIndexOf(" "), text.lastIndexOf("\n"), text.lastIndexOf("\t"));
    if (!markerFound || !/\s/.test(body[end - 1] ?? " "))
      text = lastSpace < 0 ? "" : text.slice(0, lastSpace);
    return text.trimEnd();
  };
  return (content: string) => {
    const text = showable(content);
    if (text.length > shown.length && text.startsWith(shown)) shown = text;
    return shown;
  };
}

const piece = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      "word",
      "Berlin",
      "is",
      "open",
      "o",
      "sk-1",
      "analysis",
      "final",
      "Final",
      "fin",
      "al",
      "ysis",
      "comment",
      "x",
    ),
  },
  { weight: 4, arbitrary: fc.constantFrom(" ", "  ", "\n", "\t", "\r", "\u00a0", " \n ") },
  {
    weight: 2,
    arbitrary: fc.constantFrom(...MARKERS, ...BARE_CLOSES, "<think>", "assistant", "to=", "functi"),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 4 }) },
);

/** A text and the points it is cut at. */
const cutText = fc
  .tuple(fc.array(piece, { maxLength: 40 }), fc.array(fc.nat(), { maxLength: 30 }))
  .map(([pieces, cuts]) => {
    const text = pieces.join("");
    const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
    const parts: string[] = [];
    let from = 0;
    for (const c of [...at, text.length]) {
      parts.push(text.slice(from, c));
      from = c;
    }
    return parts;
  });

describe("the answer preview, fed piece by piece", () => {
  for (const reasoningUntilClose of [false, true]) {
    it(`shows after every piece what the whole text so far shows (reasoning until a close: ${reasoningUntilClose})`, () => {
      fc.assert(
        fc.property(cutText, (parts) => {
          const preview = createAnswerPreview({ reasoningUntilClose });
          const reference = wholeTextPreview(reasoningUntilClose);
          let content = "";
          let streamed = "";
          for (const part of parts) {
            content += part;
            streamed += preview.add(part);
            expect(streamed).toBe(reference(content));
            expect(preview.shown).toBe(streamed);
          }
        }),
        { numRuns: 3000 },
      );
    });
  }

  it("costs the same per piece however long the answer is: 100,000 characters in 20,000 pieces", () => {
    const words = "The VPN gateway in Berlin dropped connections at nine, and the team is on call. ";
    const text = words.repeat(Math.ceil(100_000 / words.length)).slice(0, 100_000);
    const preview = createAnswerPreview({ reasoningUntilClose: false });
    let shown = "";
    for (let i = 0; i < text.length; i += 5) shown += preview.add(text.slice(i, i + 5));
    expect(shown).toBe(text.slice(0, text.lastIndexOf(" ")).trimEnd());
  });
});
