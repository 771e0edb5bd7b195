import { errorText, type HttpAnswer, httpProbe, oneLine } from "./http-probe.ts";
import type { ModelListFinding } from "./types.ts";

/** One entry of `GET /models` as servers send it (vLLM adds `max_model_len`, llama.cpp `meta`). */
export type ModelEntry = Record<string, unknown> & { id: string };

export interface ModelList {
  finding: ModelListFinding;
  entries: ModelEntry[];
  /** The raw answer, for the server family's evidence (headers). */
  answer: HttpAnswer;
}

/** Entries kept from a list; a gateway listing thousands of models does not need all of them. */
const MAX_ENTRIES = 500;

/**
 * `GET {base}/models`: which models the server offers and whether the configured one is among them.
 * A server without the endpoint is not a failure of the check, only a finding.
 */
export async function listModels(o: {
  base: string;
  model: string;
  apiKey: string;
  timeoutMs: number;
  signal?: AbortSignal;
}): Promise<ModelList> {
  const url = `${o.base}/models`;
  const answer = await httpProbe({ url, apiKey: o.apiKey, timeoutMs: o.timeoutMs, signal: o.signal });
  if (!answer.ok) {
    return { answer, entries: [], finding: { url, status: "unreachable", ids: [], error: answer.error } };
  }
  if (answer.status >= 400) {
    const error = `HTTP ${answer.status}: ${errorText(answer)}`;
    return { answer, entries: [], finding: { url, status: "http_error", ids: [], error } };
  }
  const data = (answer.json as { data?: unknown } | undefined)?.data;
  if (!Array.isArray(data)) {
    const error = `not a model list (${answer.headers["content-type"] ?? "no content type"}: ${oneLine(answer.text, 60)})`;
    return { answer, entries: [], finding: { url, status: "not_json", ids: [], error } };
  }
  const entries = data
    .slice(0, MAX_ENTRIES)
    .filter((e): e is ModelEntry => typeof (e as { id?: unknown } | null)?.id === "string");
  const ids = entries.map((e) => e.id);
  // Ollama serves "qwen3" as "qwen3:latest".
  const listed = ids.includes(o.model) || ids.includes(`${o.model}:latest`);
  return { answer, entries, finding: { url, status: "ok", ids, listed } };
}
