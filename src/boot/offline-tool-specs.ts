import type { ToolSpec } from "../agent/model/chat-model.ts";
import type { Config } from "../config.ts";
import { errorMessage } from "../core/errors.ts";
import { silentLogger } from "../core/logger.ts";
import { createMemoryResultStore } from "../tools/result-store.ts";
import { buildTools } from "./build-tools.ts";

export interface OfflineToolSpecs {
  specs: ToolSpec[];
  /** Said when the bot's full tool set could not be built here (what was left out, and why). */
  note?: string;
}

/**
 * A stand-in for a port the specs never touch: tools are only described here, never run, so any use
 * is a bug and fails loudly instead of reaching a database or Slack.
 */
function offline<T>(what: string): T {
  return new Proxy(
    {},
    {
      get(_target, key) {
        throw new Error(`${what} is not available while only describing tools (${String(key)})`);
      },
    },
  ) as T;
}

/**
 * The tool specs the bot offers its model, built by the bot's own `buildTools` (built-ins, then
 * `HERMES_TOOLS` and `HERMES_HTTP_TOOLS`) without a database, Slack or a model: building a tool only
 * describes it. `npm run model:check` probes with these. If the custom tools cannot be loaded here,
 * the built-ins alone are used and the note says so.
 */
export async function offlineToolSpecs(
  config: Config,
  rawEnv: Record<string, string | undefined>,
): Promise<OfflineToolSpecs> {
  const build = (c: Config) =>
    buildTools({
      config: c,
      logger: silentLogger(),
      db: offline("the database"),
      users: offline("the user store"),
      results: createMemoryResultStore(),
      slack: offline("Slack"),
      model: offline("the model"),
      auditSink: offline("the audit log"),
      rawEnv,
    });
  try {
    return { specs: (await build(config)).registry.specs() };
  } catch (err) {
    const env = { ...config.env, HERMES_TOOLS: undefined, HERMES_HTTP_TOOLS: undefined };
    const builtIns = await build({ ...config, env });
    return {
      specs: builtIns.registry.specs(),
      note: `custom tools could not be loaded (${errorMessage(err)}); probed with the built-in tools only`,
    };
  }
}
