import { resolveToolName } from "../../../tools/tool-names.ts";
import type { ToolSpec } from "../chat-model.ts";
import type { ToolFormatContext } from "./types.ts";

/**
 * The context formats parse in, from the tool specs the model was offered: names resolve the way the
 * registry resolves them (namespace, `:N`, case, `-`/`_`), so a bare call is only claimed for a tool
 * that exists, and XML values are typed from that tool's schema.
 */
export function toolFormatContext(specs: readonly ToolSpec[]): ToolFormatContext {
  const byName = new Map(specs.map((s) => [s.name, s.parameters]));
  const resolve = (name: string): string | undefined => {
    const r = resolveToolName(name, byName.keys());
    return r.kind === "exact" || r.kind === "normalized" ? r.name : undefined;
  };
  return {
    schemaOf: (name) => {
      const resolved = resolve(name);
      return resolved === undefined ? undefined : byName.get(resolved);
    },
    isToolName: (name) => resolve(name) !== undefined,
  };
}
