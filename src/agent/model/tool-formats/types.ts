/**
 * The contract every text tool-call format family implements. A local model whose server has no
 * (or the wrong) tool parser writes its calls as text in its own family's syntax; each family is one
 * module here with a cheap `detect` and a linear `parse`, tried in the order of `index.ts`.
 */

/** One call recovered from text. */
export interface ParsedCall {
  /** The name as written (namespace prefixes and case are resolved later, against the tools). */
  name: string;
  /** Arguments as JSON text (repaired later by the registry) or an already parsed object. */
  arguments: string | Record<string, unknown>;
  /**
   * False when the call's end was never written: no closing marker and the arguments do not close
   * (the model ran out of output tokens mid-call). An incomplete call is never executed.
   */
  complete: boolean;
}

export interface FormatMatch {
  /** The calls, in the order written (several = parallel calls). */
  calls: ParsedCall[];
  /** The text with the calls (and their markers) removed: the assistant's prose, trimmed. */
  prose: string;
}

export interface ToolFormatContext {
  /** The JSON Schema of a tool's arguments (name as written; prefixes/case resolved), to type XML values. */
  schemaOf(name: string): Record<string, unknown> | undefined;
  /**
   * Whether a name refers to one of the offered tools (after namespace and case normalization).
   * Formats without a marker of their own (bare JSON, bare pythonic lists) only claim text whose
   * names pass this, so prose or an example that merely looks like a call stays prose.
   */
  isToolName(name: string): boolean;
}

export interface ToolFormat {
  /** Stable id, traced as the format recovered (e.g. "hermes_json", "mistral", "harmony"). */
  id: string;
  /** Which models/servers write this syntax (for docs and `model:check`). */
  family: string;
  /** Cheap check (indexOf of the family's markers): may the text hold this family's calls? */
  detect(text: string): boolean;
  /**
   * The calls written in this family's syntax and the remaining prose, or undefined when the text
   * only looked like it (then the next format is tried). Linear in the text; at most MAX_TEXT_CALLS.
   */
  parse(text: string, ctx: ToolFormatContext): FormatMatch | undefined;
}

/** Calls taken from one message; past this many the rest stays text (no model writes more). */
export const MAX_TEXT_CALLS = 64;
