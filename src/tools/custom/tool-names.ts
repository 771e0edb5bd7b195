import { HermesError } from "../../core/errors.ts";

/** A tool name and where it came from (`built-in`, a module path, a YAML file and entry). */
export interface NamedSource {
  name: string;
  source: string;
}

/** `tools` labelled with one source, e.g. `namedSources(builtIns, "built-in")`. */
export function namedSources(tools: Iterable<{ name: string }>, source: string): NamedSource[] {
  return [...tools].map(({ name }) => ({ name, source }));
}

/**
 * Throws `config_invalid` on the first name used twice, naming both sources: a clash must stop
 * start-up, and "which two files?" is the only useful thing to say about it.
 */
export function assertUniqueToolNames(entries: Iterable<NamedSource>): void {
  const seen = new Map<string, string>();
  for (const { name, source } of entries) {
    const first = seen.get(name);
    if (first !== undefined) {
      throw new HermesError(
        "config_invalid",
        `Two tools are named "${name}": one from ${first}, one from ${source}. Rename one of them.`,
      );
    }
    seen.set(name, source);
  }
}
