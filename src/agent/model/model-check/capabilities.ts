import { apiBase } from "./endpoints.ts";
import type {
  ImageFinding,
  ModelCapabilities,
  ModelCheckResult,
  StreamFinding,
  ToolProbeOutcome,
} from "./types.ts";

/** What the bot may rely on, read off the streaming and image findings (absent: unknown). */
export function capabilitiesOf(f: { streaming?: StreamFinding; images?: ImageFinding }): ModelCapabilities {
  return {
    streaming: streamingOf(f.streaming),
    streamingToolCalls: streamedCallsOf(f.streaming),
    images: imagesOf(f.images),
  };
}

function streamingOf(s: StreamFinding | undefined): ModelCapabilities["streaming"] {
  if (!s || s.mode === "no_answer") return "unknown";
  return s.mode === "streams" ? "yes" : "no";
}

function streamedCallsOf(s: StreamFinding | undefined): ModelCapabilities["streamingToolCalls"] {
  if (s?.mode !== "streams") return "unknown";
  const kind: ToolProbeOutcome["kind"] = s.toolCalls.kind;
  if (kind === "native") return "native";
  if (kind === "text") return "text";
  return kind === "unrecovered" || kind === "unknown_markup" || kind === "no_call" ? "no" : "unknown";
}

function imagesOf(i: ImageFinding | undefined): ModelCapabilities["images"] {
  if (!i || i.result === "no_answer") return "unknown";
  return i.result === "takes_images" ? "yes" : "no";
}

/** Whether the checked model sees `image_url` parts: true only when it named the test picture's colour. */
export function modelTakesImages(result: Pick<ModelCheckResult, "capabilities">): boolean {
  return result.capabilities.images === "yes";
}

/**
 * What the last check of each model found, in this process: `checkModel` fills it (so `/hermes model`
 * does), and so does `checkModelImages` (one picture, cheap enough for start-up). A turn reads it with
 * `checkedCapabilities(config.model)` before it sends what only some models take (pictures).
 * Keyed by API base and model name; a handful of entries at most.
 */
interface Remembered {
  capabilities: ModelCapabilities;
  /** When it was found (epoch ms). */
  at: number;
  /** The whole report, when a full check found it. */
  result?: ModelCheckResult;
}

const remembered = new Map<string, Remembered>();
const MAX_ENTRIES = 16;

type ModelKey = { baseURL: string | undefined; model: string };
const keyOf = (m: ModelKey) => `${apiBase(m.baseURL)}\n${m.model}`;

function remember(key: string, entry: Remembered): void {
  remembered.delete(key);
  remembered.set(key, entry);
  while (remembered.size > MAX_ENTRIES) remembered.delete(remembered.keys().next().value!);
}

export function rememberModelCheck(result: ModelCheckResult, at = Date.now()): void {
  remember(keyOf(result), { capabilities: result.capabilities, at, result });
}

/** An image probe on its own: its answer replaces what is known about images, the rest is kept. */
export function rememberImages(model: ModelKey, images: ImageFinding, at = Date.now()): void {
  const key = keyOf(model);
  const known = remembered.get(key)?.capabilities ?? capabilitiesOf({});
  const found = imagesOf(images);
  // A probe that got no answer tells nothing new: what an earlier one found stands.
  const capabilities = { ...known, images: found === "unknown" ? known.images : found };
  remember(key, { ...remembered.get(key), capabilities, at });
}

/** The last full check of this model at this base URL in this process, and when it ended (epoch ms). */
export function lastModelCheck(model: ModelKey): { result: ModelCheckResult; at: number } | undefined {
  const entry = remembered.get(keyOf(model));
  return entry?.result ? { result: entry.result, at: entry.at } : undefined;
}

/** What is known of this model's capabilities in this process, or undefined when nothing checked it here. */
export function checkedCapabilities(model: ModelKey): ModelCapabilities | undefined {
  return remembered.get(keyOf(model))?.capabilities;
}

/** Forgets every remembered check (tests). */
export function forgetModelChecks(): void {
  remembered.clear();
}
