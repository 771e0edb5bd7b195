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
 * (text blocks that only repeat it are dropped), resource links and embedded resources listed, images
 * and audio noted (an image is uploaded into the run's thread when a SlackPort is given). The text is
 * untrusted data; the registry caps it, keeps it whole for `fetch_result`, and it reaches the model
 * as a tool result like any other.
 */
export async function renderMcpResult(result: CallToolResult, ctx: RenderContext): Promise<string> {
  const structured = result.structuredContent;
  const structuredJson = structured === undefined ? undefined : JSON.stringify(structured);
  const parts: string[] = [];
  let index = 0;
  for (const block of result.content ?? []) {
    index++;
    if (block.type === "text" && structuredJson !== undefined && sameJson(block.text, structuredJson))
      continue;
    parts.push(await renderBlock(block, index, ctx));
  }
  if (structured !== undefined) parts.push(`Structured content:\n${JSON.stringify(structured, null, 2)}`);
  return parts.join("\n\n");
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

function sameJson(text: string, json: string): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === json;
  } catch {
    return false;
  }
}

function base64Bytes(data: string): number {
  return Buffer.byteLength(data, "base64");
}

function extension(mimeType: string): string {
  const sub = mimeType.split("/")[1]?.split(/[+;]/)[0]?.toLowerCase() ?? "";
  if (sub === "jpeg") return "jpg";
  return /^[a-z0-9]{1,8}$/.test(sub) ? sub : "bin";
}
