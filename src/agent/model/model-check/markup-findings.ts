import { parserFor } from "./parser-hints.ts";
import type { Finding, ModelCheckResult } from "./types.ts";

/**
 * What the server's chat template and the model's own words say about a syntax Hermes could not
 * read: the reply verbatim (`raw sample`) and the family it likely is (`likely family`: from the chat
 * template when the server shows it, else from the model's name). With calls read, only the
 * template's family, when the server shows it.
 */
export function markupFindings(r: Pick<ModelCheckResult, "model" | "toolCalls" | "template">): Finding[] {
  const best = r.toolCalls?.best;
  const t = r.template;
  const fromTemplate = t ? `${t.parsers.family}: the chat template writes ${t.marker} (${t.source})` : "";
  if (best?.kind !== "unrecovered" && best?.kind !== "unknown_markup") {
    return fromTemplate ? [{ label: "chat template", text: fromTemplate }] : [];
  }
  const byName = parserFor(r.model);
  const family = fromTemplate
    ? fromTemplate
    : byName
      ? `${byName.family}: from the model's name (the server does not show its chat template)`
      : "unknown: the server does not show its chat template and the model's name names no family";
  return [
    { label: "raw sample", text: best.sample, raw: true },
    { label: "likely family", text: family },
  ];
}
