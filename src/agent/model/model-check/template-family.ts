import { templateParser } from "./parser-hints.ts";
import type { ServerInfo } from "./server-info.ts";
import type { TemplateFamily } from "./types.ts";

/**
 * The tool-call family of the chat template the server shows: llama.cpp's `GET /props`
 * (`chat_template_tool_use` when it has one, else `chat_template`) and Ollama's `POST /api/show`
 * (`template`). vLLM, SGLang and LM Studio do not show theirs: undefined.
 */
export function templateFamily(info: Pick<ServerInfo, "props" | "ollamaShow">): TemplateFamily | undefined {
  const props = info.props as { chat_template?: unknown; chat_template_tool_use?: unknown } | undefined;
  const show = info.ollamaShow as { template?: unknown } | undefined;
  const sources: Array<[unknown, string]> = [
    [props?.chat_template_tool_use, "GET /props chat_template_tool_use"],
    [props?.chat_template, "GET /props chat_template"],
    [show?.template, "POST /api/show template"],
  ];
  for (const [template, source] of sources) {
    if (typeof template !== "string") continue;
    const found = templateParser(template);
    if (found) return { parsers: found.parsers, marker: found.marker, source };
  }
  return undefined;
}
