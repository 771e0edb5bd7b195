import { createInterface } from "node:readline/promises";
import type { ChatModel } from "../agent/model/chat-model.ts";
import { runtimeDepsFor } from "../agent/run/agent-runtime.ts";
import { type Limits, resumeRun, runTurn, type TurnResult } from "../agent/run/loop.ts";
import { formatTraceEvent } from "../agent/run/trace-format.ts";
import type { Logger } from "../core/logger.ts";
import type { AgentWorkspace } from "./agent-workspace.ts";
import { decideInTerminal } from "./terminal-approvals.ts";

export interface AgentTurnOptions {
  task: string;
  userId: string;
  timezone?: string;
  /** `--approve`: calls that need approval run without asking. */
  approve: boolean;
  model: ChatModel;
  fallbackModel?: ChatModel;
  limits: Partial<Limits>;
  logger: Logger;
  /** Where each step's line goes as it happens. */
  print: (line: string) => void;
}

/**
 * One turn of `npm run agent` in `ws`, as the bot runs one for `userId`: their permitted tools and
 * policy, every call in the audit log. A pause for approval is decided in the terminal
 * (`decideInTerminal`) and the run continues until it ends.
 */
export async function runAgentTurn(ws: AgentWorkspace, o: AgentTurnOptions): Promise<TurnResult> {
  const access = await ws.access(o.userId);
  o.print(
    `${o.userId} (${access.level}) with ${access.allowed.size} tools, demo workspace, store ${ws.kept ? `in ${ws.dataDir}` : "temporary"}`,
  );
  const deps = {
    ...runtimeDepsFor(
      {
        model: o.model,
        ...(o.fallbackModel ? { fallbackModel: o.fallbackModel } : {}),
        registry: ws.registry,
        auditSink: ws.auditSink,
        logger: o.logger,
        limits: o.limits,
      },
      access,
      new AbortController().signal,
    ),
    onTraceEvent: (e: Parameters<typeof formatTraceEvent>[0]) => {
      const line = formatTraceEvent(e);
      if (line) o.print(line);
    },
  };
  const terminal = process.stdin.isTTY
    ? createInterface({ input: process.stdin, output: process.stdout })
    : undefined;
  try {
    let result = await runTurn(
      {
        run: { sessionKey: `cli:local:${Date.now()}`, userId: o.userId, timezone: o.timezone },
        history: [],
        userMessage: o.task,
      },
      deps,
    );
    while (result.status === "paused" && result.snapshot) {
      const decisions = await decideInTerminal(result.snapshot.pending, {
        approveAll: o.approve,
        userId: o.userId,
        ...(terminal ? { ask: (question: string) => terminal.question(question) } : {}),
        print: o.print,
      });
      result = await resumeRun(result.snapshot, decisions, deps);
    }
    return result;
  } finally {
    terminal?.close();
  }
}
