/** Helpers for the built-in tool tests: a Slack workspace on the local Web API emulator, runs, calls. */
import { silentLogger } from "../../src/core/logger.ts";
import type { RunIdentity } from "../../src/core/run-identity.ts";
import { DEMO } from "../../src/sandbox/seed-demo-workspace.ts";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import type { NewUser } from "../../src/sandbox/workspace.ts";
import type { SandboxFile } from "../../src/sandbox/workspace-types.ts";
import { createWebSlackPort } from "../../src/slack/web-slack-port.ts";
import type { Tool } from "../../src/tools/define-tool.ts";
import type { ExecutionResult } from "../../src/tools/registry.ts";
import type { SlackPort } from "../../src/tools/slack-port.ts";
import { testRegistry } from "../helpers/runtime.ts";
import { sandboxWebClient, startSlackEmulator } from "../helpers/slack.ts";

export interface SlackSandbox {
  emulator: SlackApiEmulator;
  /** The production SlackPort over the real WebClient, pointed at the emulator (no caching). */
  slack: SlackPort;
  /** ts of a message in #ops that runs reply under. */
  threadTs: string;
  /** Files shared into that thread, oldest first, with their bytes. */
  threadFiles(): SandboxFile[];
  stop(): Promise<void>;
}

/** The demo workspace (bot, U0ADMIN, U0USER1, U0WANGLEI in #ops) plus `users`, served over HTTP. */
export async function startSlackSandbox(users: NewUser[] = []): Promise<SlackSandbox> {
  const emulator = await startSlackEmulator();
  for (const user of users) emulator.workspace.addUser(user);
  const parent = emulator.workspace.post({
    channel: DEMO.ops,
    text: "How are tickets doing?",
    user: DEMO.user,
  });
  return {
    emulator,
    slack: createWebSlackPort(sandboxWebClient(emulator), { cacheMs: 0 }),
    threadTs: parent.ts,
    threadFiles: () =>
      (emulator.workspace.replies(DEMO.ops, parent.ts) ?? [])
        .flatMap((m) => m.files ?? [])
        .map((f) => emulator.workspace.getFile(f.id)!),
    stop: () => emulator.stop(),
  };
}

export function run(userId: string, more: Partial<RunIdentity> = {}): RunIdentity {
  return {
    runId: "run_test",
    sessionKey: "T0001:C0OPS:1764420000.000100",
    userId,
    teamId: "T0001",
    channelId: "C0OPS",
    threadTs: "1764420000.000100",
    ...more,
  };
}

let callSeq = 0;

/**
 * Calls tools the way the runtime does: the registry repairs, coerces and validates the model's
 * arguments, then executes; the result is what the model would read.
 */
export function toolCaller(tools: Tool[]) {
  const { registry } = testRegistry(tools);
  return async (name: string, args: unknown, identity: RunIdentity): Promise<ExecutionResult> => {
    const callId = `call_${++callSeq}`;
    const prepared = registry.prepare({ id: callId, name, arguments: JSON.stringify(args) });
    if (!prepared.ok) {
      return {
        ok: false,
        content: prepared.error,
        error: prepared.error,
        attempts: 0,
        durationMs: 0,
        fullLength: 0,
      };
    }
    return registry.execute(prepared.tool, prepared.args, {
      run: identity,
      callId,
      signal: new AbortController().signal,
      logger: silentLogger(),
    });
  };
}

/** The JSON a successful tool returned. */
export function json<T = Record<string, unknown>>(result: ExecutionResult): T {
  if (!result.ok) throw new Error(`tool failed: ${result.content}`);
  return JSON.parse(result.content) as T;
}
