import { createRequire } from "node:module";

/**
 * YAML text → data, with the `yaml` package loaded on first use: only a process given a YAML file
 * (`HERMES_MCP_SERVERS`, `HERMES_HTTP_TOOLS`, eval scenarios) pays for it.
 */
export function parseYaml(text: string): unknown {
  const { parse } = createRequire(import.meta.url)("yaml") as typeof import("yaml");
  return parse(text, { prettyErrors: true });
}
