import type { ModelEntry } from "./model-list.ts";
import type { ServerFamily, ServerFamilyId } from "./types.ts";

/** What the server answered, as far as it tells which software it is. */
export interface FamilyEvidence {
  baseURL: string;
  /** `GET /models` entries. */
  entries: readonly ModelEntry[];
  /** Response headers seen (names lower-cased). */
  headers: ReadonlyArray<Record<string, string>>;
  /** llama.cpp `GET /props`, when it answered JSON. */
  props?: unknown;
  /** Ollama `POST /api/show`, when it answered JSON. */
  ollamaShow?: unknown;
  /** LM Studio `GET /api/v0/models`, when it answered JSON. */
  lmstudioModels?: unknown;
}

const NAMES: Record<ServerFamilyId, string> = {
  vllm: "vLLM",
  sglang: "SGLang",
  llamacpp: "llama.cpp (llama-server)",
  ollama: "Ollama",
  lmstudio: "LM Studio",
  openai: "OpenAI",
  unknown: "unknown",
};

/** `owned_by` values that name their server (each server's own default for every model it lists). */
const OWNED_BY: Record<string, ServerFamilyId> = {
  vllm: "vllm",
  sglang: "sglang",
  llamacpp: "llamacpp",
  organization_owner: "lmstudio",
  library: "ollama",
  openai: "openai",
  system: "openai",
  "openai-internal": "openai",
};

/**
 * Which server software answers, from what it says about itself: the `owned_by` of its models (each
 * server fills in its own name), the endpoints only one family serves (`/props`, `/api/show`,
 * `/api/v0/models`), OpenAI's response headers and host. The first strong sign wins; none → unknown.
 */
export function guessServerFamily(e: FamilyEvidence): ServerFamily {
  const family = familyOf(e);
  const capabilities = (e.ollamaShow as { capabilities?: unknown } | undefined)?.capabilities;
  if (family.id === "ollama" && Array.isArray(capabilities)) {
    // Ollama says per model whether its template takes tools: the likeliest reason calls never come.
    const tools = capabilities.includes("tools") ? "" : " (no tools)";
    family.evidence.push(`model capabilities: ${capabilities.join(", ")}${tools}`);
  }
  return family;
}

function familyOf(e: FamilyEvidence): ServerFamily {
  const found = (id: ServerFamilyId, evidence: string[]): ServerFamily => ({ id, name: NAMES[id], evidence });
  for (const entry of e.entries) {
    const owner = typeof entry.owned_by === "string" ? entry.owned_by : undefined;
    const id = owner ? OWNED_BY[owner] : undefined;
    if (id) return found(id, [`owned_by: ${owner}`]);
  }
  if (isLlamaCppProps(e.props))
    return found("llamacpp", ["GET /props answered (default_generation_settings)"]);
  if (isOllamaShow(e.ollamaShow)) return found("ollama", ["POST /api/show answered"]);
  if (isLmStudioList(e.lmstudioModels)) return found("lmstudio", ["GET /api/v0/models answered"]);
  const openaiHeader = e.headers.flatMap((h) => Object.keys(h)).find((k) => k.startsWith("openai-"));
  if (openaiHeader) return found("openai", [`header ${openaiHeader}`]);
  if (hostOf(e.baseURL) === "api.openai.com") return found("openai", ["host api.openai.com"]);
  const server = e.headers.map((h) => h.server).find((s) => s !== undefined);
  return found("unknown", server ? [`server: ${server}`] : []);
}

function isLlamaCppProps(v: unknown): boolean {
  return typeof v === "object" && v !== null && "default_generation_settings" in v;
}

function isOllamaShow(v: unknown): boolean {
  return typeof v === "object" && v !== null && ("model_info" in v || "modelfile" in v);
}

function isLmStudioList(v: unknown): boolean {
  const data = (v as { data?: unknown } | null)?.data;
  return (
    Array.isArray(data) &&
    data.some(
      (m) => typeof m === "object" && m !== null && ("max_context_length" in m || "compatibility_type" in m),
    )
  );
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}
