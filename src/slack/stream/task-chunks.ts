import type { TraceEvent } from "../../agent/run/trace.ts";

/** One step of a streamed message's task list (Slack's `task_update` chunk). */
export interface TaskUpdateChunk {
  type: "task_update";
  id: string;
  title: string;
  status: "pending" | "in_progress" | "complete" | "error";
  details?: string;
}

/**
 * The task card a trace event changes, if any: a call that starts is in progress, one that ends is
 * complete or an error, one waiting for approval is pending, one the policy refused is an error. The
 * card's id is the call's, so its later states update it in place. Arguments and results never go
 * into a card (they may hold personal data): the tool's name, and a word about the outcome.
 */
export function taskChunkOf(e: TraceEvent): TaskUpdateChunk | undefined {
  const tool = typeof e.tool === "string" ? e.tool : undefined;
  if (!tool) return undefined;
  const id = typeof e.callId === "string" && e.callId ? e.callId : `${e.step}:${tool}`;
  const card = (status: TaskUpdateChunk["status"], details?: string): TaskUpdateChunk => ({
    type: "task_update",
    id,
    title: `\`${tool}\``,
    status,
    ...(details ? { details } : {}),
  });
  switch (e.event) {
    case "tool.start":
      return card("in_progress");
    case "tool.end":
      return e.ok === false ? card("error", "failed") : card("complete");
    case "tool.policy":
      if (e.decision === "needs_approval") return card("pending", "waiting for approval");
      if (e.decision === "deny") return card("error", "not allowed");
      return undefined;
    default:
      return undefined;
  }
}
