import type { ModelConfig } from "../../../config.ts";
import { rememberImages } from "./capabilities.ts";
import { apiBase } from "./endpoints.ts";
import { probeImages } from "./image-probe.ts";
import type { ImageFinding } from "./types.ts";

/** One picture request is bounded like a check's probe. */
const CAP_MS = 20_000;

/**
 * Only the image probe of the model check, for a process that needs to know whether the configured
 * model sees pictures without the whole check (a worker at start-up, `HERMES_MODEL_IMAGES=auto`):
 * one request, remembered like a full check's finding (`checkedCapabilities`). Never throws.
 */
export async function checkModelImages(
  model: ModelConfig,
  o: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<ImageFinding> {
  const images = await probeImages({
    url: `${apiBase(model.baseURL)}/chat/completions`,
    model: model.model,
    apiKey: model.apiKey,
    temperature: model.temperature,
    maxTokens: model.maxOutputTokens,
    timeoutMs: o.timeoutMs ?? Math.min(model.timeoutMs, CAP_MS),
    ...(o.signal ? { signal: o.signal } : {}),
  });
  rememberImages(model, images);
  return images;
}
