import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ScriptStep } from "./scenario-schema.ts";

/** What the scripted model says once a scenario's script is used up: the run ends with it. */
export const SCRIPT_EXHAUSTED = "(the scenario's script has no more steps)";

const tokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

function completion(step: ScriptStep, seq: number, promptChars: number) {
  const message =
    "calls" in step
      ? {
          role: "assistant",
          content: null,
          tool_calls: step.calls.map((c, i) => ({
            id: `call_${seq}_${i}`,
            type: "function",
            function: {
              name: c.tool,
              arguments: typeof c.args === "string" ? c.args : JSON.stringify(c.args ?? {}),
            },
          })),
        }
      : { role: "assistant", content: "answer" in step ? step.answer : step.content };
  const completionText = JSON.stringify(message);
  return {
    id: `chatcmpl-eval-${seq}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: "scripted",
    choices: [{ index: 0, finish_reason: "calls" in step ? "tool_calls" : "stop", message }],
    usage: {
      prompt_tokens: tokens("x".repeat(promptChars)),
      completion_tokens: tokens(completionText),
      total_tokens: tokens("x".repeat(promptChars)) + tokens(completionText),
    },
  };
}

/**
 * The `--scripted` model: an OpenAI-compatible server on loopback that answers each request with the
 * current scenario's next script step, so the real adapter, loop, registry and policy run offline.
 */
export class ScriptedModelServer {
  private script: ScriptStep[] = [];
  private server: Server | undefined;
  private seq = 0;

  get baseURL(): string {
    const port = (this.server?.address() as AddressInfo | null)?.port;
    return `http://127.0.0.1:${port}/v1`;
  }

  /** The steps the next requests get, in order (replacing what was left). */
  load(script: readonly ScriptStep[]): void {
    this.script = [...script];
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const step = this.script.shift() ?? { answer: SCRIPT_EXHAUSTED };
        const body = completion(step, ++this.seq, Buffer.concat(chunks).length);
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    return this;
  }

  async stop(): Promise<void> {
    const s = this.server;
    if (!s) return;
    this.server = undefined;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}
