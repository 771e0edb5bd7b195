import type { ModelEntry } from "./model-list.ts";
import type { ContextWindowFinding } from "./types.ts";

export interface ContextSources {
  model: string;
  /** The configured model's `GET /models` entry. */
  entry?: ModelEntry;
  /** llama.cpp `GET /props`. */
  props?: unknown;
  /** Ollama `POST /api/show`. */
  ollamaShow?: unknown;
  /** LM Studio `GET /api/v0/models`. */
  lmstudioModels?: unknown;
}

const OLLAMA_MAX_NOTE = "the model's maximum; Ollama may serve less: `ollama ps` shows what is loaded";

/**
 * The context window the server reports, wherever its family puts it: vLLM/SGLang `max_model_len`
 * on the model entry, llama.cpp `/props` `default_generation_settings.n_ctx`, Ollama `/api/show`
 * (`num_ctx` when set, else `<arch>.context_length`, the model's maximum), LM Studio `/api/v0/models`
 * (`loaded_context_length`, else `max_context_length`). The serving limit wins over a model maximum.
 */
export function findContextWindow(s: ContextSources): ContextWindowFinding | undefined {
  const entry = s.entry;
  const maxModelLen = positive(entry?.max_model_len);
  if (maxModelLen) return { tokens: maxModelLen, source: "GET /v1/models max_model_len" };

  const settings = (s.props as { default_generation_settings?: { n_ctx?: unknown } } | undefined)
    ?.default_generation_settings;
  const nCtx = positive(settings?.n_ctx) ?? positive((s.props as { n_ctx?: unknown } | undefined)?.n_ctx);
  if (nCtx) return { tokens: nCtx, source: "GET /props default_generation_settings.n_ctx" };

  const ollama = fromOllamaShow(s.ollamaShow);
  if (ollama) return ollama;

  const lm = fromLmStudio(s.lmstudioModels, s.model);
  if (lm) return lm;

  const generic = positive(entry?.context_length) ?? positive(entry?.context_window);
  if (generic) return { tokens: generic, source: "GET /v1/models context_length" };
  const trained = positive((entry?.meta as { n_ctx_train?: unknown } | undefined)?.n_ctx_train);
  if (trained) {
    return {
      tokens: trained,
      source: "GET /v1/models meta.n_ctx_train",
      note: "the model's training context",
    };
  }
  return undefined;
}

function fromOllamaShow(show: unknown): ContextWindowFinding | undefined {
  if (typeof show !== "object" || show === null) return undefined;
  const { parameters, model_info: info } = show as { parameters?: unknown; model_info?: unknown };
  if (typeof parameters === "string") {
    for (const line of parameters.split("\n")) {
      const [key, value] = line.trim().split(/\s+/);
      const n = key === "num_ctx" ? positive(Number(value)) : undefined;
      if (n) return { tokens: n, source: "POST /api/show parameters num_ctx" };
    }
  }
  if (typeof info === "object" && info !== null) {
    const record = info as Record<string, unknown>;
    const arch = record["general.architecture"];
    const key =
      typeof arch === "string" && `${arch}.context_length` in record
        ? `${arch}.context_length`
        : Object.keys(record).find((k) => k.endsWith(".context_length"));
    const n = key ? positive(record[key]) : undefined;
    if (n) return { tokens: n, source: `POST /api/show model_info["${key}"]`, note: OLLAMA_MAX_NOTE };
  }
  return undefined;
}

function fromLmStudio(list: unknown, model: string): ContextWindowFinding | undefined {
  const data = (list as { data?: unknown } | undefined)?.data;
  if (!Array.isArray(data)) return undefined;
  const entry = data.find((m) => (m as { id?: unknown } | null)?.id === model) as
    | { loaded_context_length?: unknown; max_context_length?: unknown }
    | undefined;
  const loaded = positive(entry?.loaded_context_length);
  if (loaded) return { tokens: loaded, source: "GET /api/v0/models loaded_context_length" };
  const max = positive(entry?.max_context_length);
  if (max) {
    return {
      tokens: max,
      source: "GET /api/v0/models max_context_length",
      note: "the model's maximum; LM Studio may load it with less",
    };
  }
  return undefined;
}

function positive(v: unknown): number | undefined {
  return typeof v === "number" && Number.isInteger(v) && v > 0 ? v : undefined;
}
