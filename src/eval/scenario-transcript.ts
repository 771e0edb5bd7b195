/** One call the model asked for, with what became of it. */
export interface RecordedCall {
  callId: string;
  tool: string;
  args: unknown;
  outcome: "requested" | "executed" | "failed" | "invalid" | "denied" | "pending";
}

/** What one scenario run did: its calls, pauses and answer, and what it cost. */
export interface RunRecord {
  /** The runtime's run id of each turn (find them in the `--trace` file). */
  runIds: string[];
  calls: RecordedCall[];
  /** Calls with arguments that did not validate, or naming a tool that does not exist. */
  invalidCalls: number;
  /** Times the run stopped for approval. */
  approvalsRequested: number;
  /** Calls policy refused. */
  denials: number;
  /** Trace events that show the adapter or registry had to fix the model's output. */
  repairs: number;
  /** The last turn's answer (or the sentence saying why it stopped). */
  answer: string;
  status: "completed" | "paused" | "stopped" | "failed";
  steps: number;
  modelCalls: number;
  promptTokens: number;
  completionTokens: number;
  latencyMs: number;
  /** Models that answered (as the server named them), in order of first use. */
  models: string[];
  /**
   * Each model call's tokens, with the names its price is looked up by: the model that answered, then
   * the configured one (a run may switch models, or a server answer with a dated name).
   */
  usageByCall: Array<{ models: string[]; promptTokens: number; completionTokens: number }>;
  /** Set when the run could not be carried out at all (e.g. the model server was unreachable). */
  error?: string;
}
