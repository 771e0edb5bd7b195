import type { AgentRuntime } from "../agent/agent-runtime.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../logger.ts";
import type { Storage } from "../store/storage.ts";
import type { TurnOutput } from "./turn-output.ts";

/** What a worker runs a job with: the stores, the agent runtime, and the output port to Slack. */
export interface WorkerDeps extends Storage, AgentRuntime {
  config: Config;
  logger: Logger;
  output: TurnOutput;
}
