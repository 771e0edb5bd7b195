import { type HttpAnswer, httpProbe } from "./http-probe.ts";
import type { ServerFamilyId } from "./types.ts";

/** What the family-specific endpoints at the server's root answered (JSON bodies of 200 answers). */
export interface ServerInfo {
  props?: unknown;
  ollamaShow?: unknown;
  lmstudioModels?: unknown;
  headers: Array<Record<string, string>>;
}

/**
 * Asks the server's own endpoints for what the OpenAI API does not tell (the context window, and
 * which software it is): llama.cpp `GET /props`, Ollama `POST /api/show`, LM Studio `GET
 * /api/v0/models`. Only the family's own endpoint when `/models` already named it; all three, in
 * parallel, when it did not. A 404 or an error is simply no answer.
 */
export async function fetchServerInfo(o: {
  root: string;
  model: string;
  apiKey: string;
  family: ServerFamilyId;
  timeoutMs: number;
  signal?: AbortSignal;
}): Promise<ServerInfo> {
  const ask = (family: ServerFamilyId) => o.family === family || o.family === "unknown";
  const common = { apiKey: o.apiKey, timeoutMs: o.timeoutMs, signal: o.signal };
  const [props, show, lmstudio] = await Promise.all([
    ask("llamacpp") ? httpProbe({ url: `${o.root}/props`, ...common }) : undefined,
    ask("ollama")
      ? httpProbe({ url: `${o.root}/api/show`, method: "POST", body: { model: o.model }, ...common })
      : undefined,
    ask("lmstudio") ? httpProbe({ url: `${o.root}/api/v0/models`, ...common }) : undefined,
  ]);
  return {
    props: jsonOf(props),
    ollamaShow: jsonOf(show),
    lmstudioModels: jsonOf(lmstudio),
    headers: [props, show, lmstudio].flatMap((a) => (a?.ok ? [a.headers] : [])),
  };
}

function jsonOf(answer: HttpAnswer | undefined): unknown {
  return answer?.ok && answer.status === 200 && typeof answer.json === "object" ? answer.json : undefined;
}
