import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage } from "../errors.ts";
import type { RunIdentity } from "../tools/define-tool.ts";
import type { SlackPort } from "../tools/slack-port.ts";

/** Images larger than this are not uploaded (Slack would accept them; a thread does not need them). */
const MAX_UPLOAD_BYTES = 5_000_000;

type Block = CallToolResult["content"][number];

export interface RenderContext {
  server: string;
  tool: string;
  run: RunIdentity;
  /** When given, images go into the run's own thread; otherwise (or when that fails) a note says one was returned. */
  slack?: SlackPort;
}

/**
 * A `tools/call` result as the text the model reads: text blocks joined, `structuredContent` as JSON
 * (unless the text already carries all of it), resource links and embedded resources listed, images
 * and audio noted (an image is uploaded into the run's thread when a SlackPort is given). The text is
 * untrusted data; the registry caps it, keeps it whole for `fetch_result`, and it reaches the model
 * as a tool result like any other.
 */
export async function renderMcpResult(result: CallToolResult, ctx: RenderContext): Promise<string> {
  const parts: string[] = [];
  let index = 0;
  for (const block of result.content ?? []) {
    index++;
    parts.push(await renderBlock(block, index, ctx));
  }
  const structured = result.structuredContent;
  if (structured !== undefined && !alreadySaid(structured, parts.join("\n"))) {
    parts.push(`Structured content:\n${JSON.stringify(structured, null, 2)}`);
  }
  return parts.join("\n\n");
}

const MAX_LEAVES = 500;

/**
 * Whether the text already carries the structured content: servers are asked to repeat it as JSON
 * text, and many put its values in prose. Every value (string, number, boolean) must appear in the
 * text; otherwise the JSON is added, so no data is lost and none is sent twice.
 */
function alreadySaid(structured: unknown, text: string): boolean {
  if (text.trim() === "") return false;
  const leaves: string[] = [];
  const walk = (v: unknown): void => {
    if (leaves.length > MAX_LEAVES) return;
    if (v === null || v === undefined) return;
    if (typeof v === "object") {
      for (const item of Array.isArray(v) ? v : Object.values(v)) walk(item);
      return;
    }
    leaves.push(String(v));
  };
  walk(structured);
  if (leaves.length > MAX_LEAVES) return false;
  return leaves.every((leaf) => text.includes(leaf));
}

async function renderBlock(block: Block, index: number, ctx: RenderContext): Promise<string> {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
      return await renderImage(block.data, block.mimeType, index, ctx);
    case "audio":
      return `[audio (${block.mimeType}, ${base64Bytes(block.data)} bytes) returned; not shown]`;
    case "resource_link": {
      const about = [block.mimeType, block.description].filter(Boolean).join("; ");
      return `[resource link: ${block.name} <${block.uri}>${about ? ` (${about})` : ""}]`;
    }
    case "resource": {
      const r = block.resource;
      if ("text" in r && typeof r.text === "string") {
        return `[resource ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ""}]\n${r.text}`;
      }
      const bytes = "blob" in r && typeof r.blob === "string" ? base64Bytes(r.blob) : 0;
      return `[resource ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ""}: ${bytes} bytes of binary data; not shown]`;
    }
    default:
      return `[content of type ${(block as { type?: unknown }).type} returned; not shown]`;
  }
}

async function renderImage(
  data: string,
  mimeType: string,
  index: number,
  ctx: RenderContext,
): Promise<string> {
  const bytes = base64Bytes(data);
  const { slack, run } = ctx;
  // Only into the run's own channel and thread: a result never chooses where anything is posted.
  if (slack && run.channelId && bytes <= MAX_UPLOAD_BYTES) {
    const filename = `${ctx.server}-${ctx.tool}-${index}.${extension(mimeType)}`;
    try {
      const { fileId } = await slack.uploadFile({
        channel: run.channelId,
        ...(run.threadTs ? { threadTs: run.threadTs } : {}),
        filename,
        title: `${ctx.tool} (MCP server ${ctx.server})`,
        content: Buffer.from(data, "base64"),
      });
      return `[image (${mimeType}, ${bytes} bytes) uploaded to the thread as ${filename}, file ${fileId}]`;
    } catch (err) {
      return `[image (${mimeType}, ${bytes} bytes) returned; uploading it failed: ${errorMessage(err)}]`;
    }
  }
  return `[image (${mimeType}, ${bytes} bytes) returned; not shown]`;
}

function base64Bytes(data: string): number {
  return Buffer.byteLength(data, "base64");
}

function extension(mimeType: string): string {
  const sub = mimeType.split("/")[1]?.split(/[+;]/)[0]?.toLowerCase() ?? "";
  if (sub === "jpeg") return "jpg";
  return /^[a-z0-9]{1,8}$/.test(sub) ? sub : "bin";
}
