import type { AgentRuntime } from "../agent/run/agent-runtime.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../core/logger.ts";
import type { Metrics } from "../core/metrics.ts";
import type { ReadTurnFiles } from "../files/intake/turn-files-reader.ts";
import type { Storage } from "../storage.ts";
import type { RunStops } from "./run-stops.ts";
import type { TeamScope } from "./team-scope.ts";
import type { TurnOutput } from "./turn-output.ts";

/**
 * What a worker runs a job with, in the composition root's groups: the stores, the agent runtime,
 * and the output port to Slack. A function that needs less takes a `Pick` of the group it reads.
 */
export interface WorkerDeps {
  config: Config;
  logger: Logger;
  storage: Storage;
  runtime: AgentRuntime;
  output: TurnOutput;
  /** Reads the files people shared with a turn; absent where none can be read (the CLI, tests). */
  readFiles?: ReadTurnFiles;
  /** The user's Stop on a thread's run (agent sessions); absent where nobody can stop one. */
  stops?: RunStops;
  /** Turns' outcomes and latency for `/metrics`; absent where nothing is scraped. */
  metrics?: Metrics;
  /** OAuth installs: each job runs as its team's workspace (its token, its rate budgets). */
  teams?: TeamScope;
}
