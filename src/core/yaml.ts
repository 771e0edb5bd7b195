import { createRequire } from "node:module";

const load = createRequire(import.meta.url);

/**
 * YAML text → data, with the `yaml` package loaded on first use: only a process given a YAML file
 * (`HERMES_MCP_SERVERS`, `HERMES_HTTP_TOOLS`) pays for it.
 */
export function parseYaml(text: string): unknown {
  const { parse } = load("yaml") as typeof import("yaml");
  return parse(text, { prettyErrors: true });
}
