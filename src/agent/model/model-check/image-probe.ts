import { normalizeAssistantMessage, type RawAssistantMessage } from "../normalize-response.ts";
import { samplingParams } from "../sampling-params.ts";
import { errorText, httpProbe, oneLine } from "./http-probe.ts";
import { pngDataUrl, solidPng } from "./tiny-png.ts";
import type { ChatSettings } from "./tool-call-probe.ts";
import type { ImageFinding } from "./types.ts";

/** A question only a model that sees the picture can answer: the picture is one plain colour. */
export const IMAGE_QUESTION = "What colour is this picture? Answer with one word.";

/** Pure red: the colour every vision model names, and not one a blind model is told to guess. */
const RED: readonly [number, number, number] = [220, 20, 20];
const SAYS_RED = /\b(red|crimson|scarlet)\b/i;

/** Server words for "no pictures with this model" (vLLM, llama.cpp without mmproj, LM Studio, gateways). */
const IMAGE_WORDS = /image|vision|multimodal|multi-modal|mmproj|content part|image_url/i;

/**
 * Sends a 16×16 red PNG as an `image_url` data-URL content part with a question only the picture
 * answers. Naming the colour is `takes_images`; an HTTP error is `refuses_images` (a 4xx, or any
 * error that speaks of images); an answer that does not name it means the picture was dropped on the
 * way (`ignores_images`). Never throws.
 */
export async function probeImages(s: ChatSettings): Promise<ImageFinding> {
  const answer = await httpProbe({
    url: s.url,
    method: "POST",
    apiKey: s.apiKey,
    timeoutMs: s.timeoutMs,
    signal: s.signal,
    body: {
      model: s.model,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: IMAGE_QUESTION },
            { type: "image_url", image_url: { url: pngDataUrl(solidPng(RED)) } },
          ],
        },
      ],
      ...samplingParams(s.model, s.temperature, s.maxTokens),
    },
  });
  if (!answer.ok) return { result: "no_answer", error: answer.error };
  if (answer.status >= 400) {
    const message = errorText(answer);
    const refused =
      IMAGE_WORDS.test(message) || (answer.status < 500 && ![401, 403, 408, 429].includes(answer.status));
    if (refused) return { result: "refuses_images", status: answer.status, message };
    return { result: "no_answer", error: `HTTP ${answer.status}: ${message}` };
  }
  const choices = (answer.json as { choices?: unknown } | undefined)?.choices;
  const first = Array.isArray(choices) ? (choices[0] as { message?: unknown } | undefined) : undefined;
  if (typeof first?.message !== "object" || first.message === null) {
    return { result: "no_answer", error: "the answer is not a chat completion" };
  }
  const normalized = normalizeAssistantMessage(first.message as RawAssistantMessage, "stop");
  const said = normalized.content.trim() || normalized.reasoning.trim();
  const shown = oneLine(said, 120);
  return SAYS_RED.test(said)
    ? { result: "takes_images", answer: shown }
    : { result: "ignores_images", answer: shown };
}
