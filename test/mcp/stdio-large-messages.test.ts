import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { OFF_THREAD_BYTES } from "../../src/mcp/off-thread-parse.ts";
import {
  CappedCallToolResultSchema,
  MAX_MESSAGE_BYTES,
  MAX_RESULT_BLOCKS,
  omittedBlocks,
} from "../../src/mcp/result-limits.ts";
import { LineStdioTransport } from "../../src/mcp/stdio-transport.ts";
import { waitFor } from "./mcp-harness.ts";

/**
 * A stdio server that writes the lines `source` (JavaScript, with `blocks(n, pad)` in scope) evaluates
 * to, at once (one write, so a large line and the small ones after it arrive together), then stays
 * until its stdin closes. The lines are built there: an argument cannot hold a megabyte.
 */
function writerServer(source: string): LineStdioTransport {
  const script = `const blocks = ${blocksSource};
const lines = ${source};
process.stdout.write(lines.map((l) => typeof l === "string" ? l : JSON.stringify(l)).join("\\n") + "\\n");
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));`;
  return new LineStdioTransport({
    command: process.execPath,
    args: ["-e", script],
    maxMessageBytes: MAX_MESSAGE_BYTES,
  });
}

const blocksSource = `(n, pad = 0) => Array.from({ length: n }, (_, i) => ({ type: "text", text: "line " + i + " " + "x".repeat(pad) }))`;

async function received(source: string, count: number): Promise<JSONRPCMessage[]> {
  const transport = writerServer(source);
  const messages: JSONRPCMessage[] = [];
  const errors: Error[] = [];
  transport.onmessage = (message) => messages.push(message);
  transport.onerror = (error) => errors.push(error);
  await transport.start();
  try {
    await waitFor(() => messages.length + errors.length >= count, "the messages", 30_000);
    expect(errors).toEqual([]);
    return messages;
  } finally {
    await transport.close();
  }
}

describe("large stdio messages are parsed off the main thread", () => {
  it("a large message and the small ones written after it are handed on in the order they were written", async () => {
    // Over OFF_THREAD_BYTES: parsed on the worker; the small ones after it are parsed at once but wait.
    const pad = Math.ceil(OFF_THREAD_BYTES / 10);
    const messages = await received(
      `[
        { jsonrpc: "2.0", id: 0, result: { content: blocks(1) } },
        { jsonrpc: "2.0", id: 1, result: { content: blocks(20, ${pad}) } },
        { jsonrpc: "2.0", id: 2, result: { content: blocks(1) } },
        { jsonrpc: "2.0", method: "notifications/tools/list_changed" },
      ]`,
      4,
    );
    expect(messages.map((m) => ("id" in m ? m.id : "method" in m ? m.method : "?"))).toEqual([
      0,
      1,
      2,
      "notifications/tools/list_changed",
    ]);
    const first = messages[1];
    expect(first && "result" in first ? (first.result.content as unknown[]).length : 0).toBe(20);
  });

  it("a large result keeps its first blocks and how many were left out, which a server cannot claim", async () => {
    const many = MAX_RESULT_BLOCKS + 1_500;
    // ~2,500 blocks of 1,000 characters: over OFF_THREAD_BYTES, so capped on the worker.
    const [message] = await received(
      `[{ jsonrpc: "2.0", id: 7, result: { content: blocks(${many}, 1000), "hermes/omittedContentBlocks": 3 } }]`,
      1,
    );
    const result = CappedCallToolResultSchema.parse(
      message && "result" in message ? message.result : undefined,
    );
    expect(result.content).toHaveLength(MAX_RESULT_BLOCKS);
    expect(omittedBlocks(result)).toBe(1_500);
  });

  it("a large line that is not JSON is reported as an error, and the transport reads on", async () => {
    // Not JSON, and over OFF_THREAD_BYTES: the worker's parse fails; the next line is still read.
    const broken = writerServer(
      `['{"jsonrpc":"2.0","id":1,"result":' + "[".repeat(10) + "x".repeat(${OFF_THREAD_BYTES}), { jsonrpc: "2.0", id: 2, result: {} }]`,
    );
    const messages: JSONRPCMessage[] = [];
    const errors: Error[] = [];
    broken.onmessage = (message) => messages.push(message);
    broken.onerror = (error) => errors.push(error);
    await broken.start();
    try {
      await waitFor(() => messages.length + errors.length >= 2, "an error and the next message", 30_000);
      expect(errors).toHaveLength(1);
      expect(messages.map((m) => ("id" in m ? m.id : undefined))).toEqual([2]);
    } finally {
      await broken.close();
    }
  });
});
