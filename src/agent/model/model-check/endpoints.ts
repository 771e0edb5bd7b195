/** OpenAI's own API, where the SDK goes when OPENAI_BASE_URL is not set. */
export const OPENAI_DEFAULT_BASE = "https://api.openai.com/v1";

/** The API base the bot talks to (no trailing slash): `OPENAI_BASE_URL`, or OpenAI's. */
export function apiBase(baseURL: string | undefined): string {
  return (baseURL ?? OPENAI_DEFAULT_BASE).replace(/\/+$/, "");
}

/**
 * The server's root, where llama.cpp (`/props`), Ollama (`/api/show`) and LM Studio (`/api/v0/…`)
 * serve their own endpoints: the API base without its trailing `/v1`.
 */
export function serverRoot(baseURL: string | undefined): string {
  const base = apiBase(baseURL);
  return base.endsWith("/v1") ? base.slice(0, -3) : base;
}
