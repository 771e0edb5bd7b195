import type { Logger } from "../../core/logger.ts";
import type { RunIdentity } from "../../core/run-identity.ts";
import type { ToolRegistry } from "../../tools/registry.ts";
import type { ChatMessage, MessageImage, Usage } from "../context/messages.ts";
import type { ChatModel } from "../model/chat-model.ts";
import type { PolicyHook, ToolEventSink } from "./policy-hook.ts";
import type { Checkpoint, FallbackSwitch, RunSnapshot } from "./snapshot.ts";
import type { StopReason } from "./stop-messages.ts";
import type { TraceEvent } from "./trace.ts";

export interface Limits {
  maxSteps: number;
  maxConsecutiveFailures: number;
  turnTimeoutMs: number;
  contextBudgetTokens: number;
  maxTruncations: number;
  /** Replies with a call no format reads, per turn, before the fallback model (or a clear stop). */
  maxUnreadable: number;
}

export const DEFAULT_LIMITS: Limits = {
  maxSteps: 10,
  maxConsecutiveFailures: 3,
  turnTimeoutMs: 300_000,
  contextBudgetTokens: 8000,
  maxTruncations: 2,
  maxUnreadable: 2,
};

export interface RuntimeDeps {
  model: ChatModel;
  /** Used for the rest of the run when `model` is unreachable or twice writes calls nothing can read. */
  fallbackModel?: ChatModel;
  registry: ToolRegistry;
  logger: Logger;
  policy?: PolicyHook;
  onToolEvent?: ToolEventSink;
  /** Tool names this run may see and call (the user's permitted tools); all registered when omitted. */
  toolNames?: string[];
  systemPrompt?: string;
  limits?: Partial<Limits>;
  onTraceEvent?: (e: TraceEvent) => void;
  signal?: AbortSignal;
  /** Waits for what the run's model calls still have to write (budget settles); awaited as a run ends. */
  settled?: () => Promise<void>;
}

export interface TurnInput {
  run: Omit<RunIdentity, "runId"> & { runId?: string };
  /** The thread's history so far (as a previous TurnResult returned it). */
  history: ChatMessage[];
  userMessage: string;
  /** Images shared with the message, for a model that takes them. */
  userImages?: MessageImage[];
}

export type TurnStatus = "completed" | "paused" | "stopped" | "failed";

export interface TurnResult {
  status: TurnStatus;
  runId: string;
  /** The final answer, or the sentence that explains why the run stopped. Empty while paused. */
  answer: string;
  stopReason?: StopReason;
  /** The new history to keep for the thread. */
  messages: ChatMessage[];
  snapshot?: RunSnapshot;
  usage: Usage;
  steps: number;
  modelCalls: number;
  /** Set when the run switched to the fallback model. */
  fallback?: FallbackSwitch;
}

/** The runtime's dependencies plus, for a durable run, where its checkpoints go. */
export type DurableDeps = RuntimeDeps & { checkpoint?: Checkpoint };
