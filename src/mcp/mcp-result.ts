import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage } from "../core/errors.ts";
import type { RunIdentity } from "../core/run-identity.ts";
import type { SlackPort } from "../tools/slack-port.ts";
import { MAX_RENDERED_CHARS, MAX_RESULT_BLOCKS, omittedBlocks } from "./result-limits.ts";

/** Images larger than this are not uploaded (Slack would accept them; a thread does not need them). */
const MAX_UPLOAD_BYTES = 5_000_000;
/** Images uploaded per call: a result with a hundred images must not post a hundred files. */
export const MAX_UPLOADS_PER_CALL = 4;
/** The tool's name in a file name or title: the server chose it. */
const MAX_NAME_CHARS = 40;

type Block = CallToolResult["content"][number];

export interface RenderContext {
  server: string;
  tool: string;
  run: RunIdentity;
  /** When given, images go into the run's own thread; otherwise (or when that fails) a note says one was returned. */
  slack?: SlackPort;
  /** The call's signal: once it is aborted (the turn cancelled, the tool timed out) nothing is uploaded. */
  signal?: AbortSignal;
}

/** What one result's rendering has done so far. */
interface RenderState {
  uploads: number;
  /** An error result's images are noted, not posted: the call failed. */
  isError: boolean;
}

/**
 * A `tools/call` result as the text the model reads: text blocks joined, `structuredContent` as JSON
 * (unless the text already carries all of it), resource links and embedded resources listed, images
 * and audio noted (an image is uploaded into the run's thread when a SlackPort is given). The text is
 * untrusted data; the registry caps it, keeps it whole for `fetch_result`, and it reaches the model
 * as a tool result like any other. Rendering stops at MAX_RENDERED_CHARS (and a result's blocks past
 * MAX_RESULT_BLOCKS were never read: result-limits.ts), with a note of how much was left out.
 */
export async function renderMcpResult(result: CallToolResult, ctx: RenderContext): Promise<string> {
  const parts: string[] = [];
  const state: RenderState = { uploads: 0, isError: result.isError === true };
  const blocks = result.content ?? [];
  const total = blocks.length + omittedBlocks(result);
  let chars = 0;
  let index = 0;
  let cut = false;
  for (const block of blocks) {
    const text = await renderBlock(block, index + 1, ctx, state);
    const room = MAX_RENDERED_CHARS - chars;
    if (text.length > room) {
      // The block that does not fit whole shows as far as it fits.
      if (room > 0) parts.push(text.slice(0, room));
      cut = room > 0;
      break;
    }
    parts.push(text);
    chars += text.length + 2;
    index++;
  }
  if (index < total) {
    const left = cut
      ? `the rest of content block ${index + 1} and ${total - index - 1} more blocks (of ${total})`
      : `${total - index} of ${total} content blocks`;
    const structured = result.structuredContent === undefined ? "" : ", and the structured content";
    parts.push(
      `[${left}${structured} left out: one result shows at most ${MAX_RESULT_BLOCKS} blocks and ${MAX_RENDERED_CHARS} characters]`,
    );
    return parts.join("\n\n");
  }
  const structured = result.structuredContent;
  if (structured !== undefined && !alreadySaid(structured, parts)) {
    const json = JSON.stringify(structured, null, 2);
    const room = Math.max(0, MAX_RENDERED_CHARS - chars);
    parts.push(
      json.length <= room
        ? `Structured content:\n${json}`
        : `Structured content (the first ${room} of ${json.length} characters; the rest left out):\n${json.slice(0, room)}`,
    );
  }
  return parts.join("\n\n");
}

const MAX_LEAVES = 500;

/**
 * Whether the text already carries the structured content: servers are asked to repeat it as JSON
 * text, and many put its values in prose. Every value (string, number, boolean) must appear in the
 * text; otherwise the JSON is added, so no data is lost and none is sent twice.
 */
function alreadySaid(structured: unknown, parts: readonly string[]): boolean {
  if (parts.every((p) => p.trim() === "")) return false;
  const text = parts.join("\n");
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

async function renderBlock(
  block: Block,
  index: number,
  ctx: RenderContext,
  state: RenderState,
): Promise<string> {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
      return await renderImage(block.data, block.mimeType, index, ctx, state);
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
  state: RenderState,
): Promise<string> {
  const bytes = base64Bytes(data);
  const { slack, run } = ctx;
  if (slack && run.channelId && bytes <= MAX_UPLOAD_BYTES && state.uploads >= MAX_UPLOADS_PER_CALL) {
    return `[image (${mimeType}, ${bytes} bytes) returned; not uploaded (only the first ${MAX_UPLOADS_PER_CALL} images of a call are)]`;
  }
  // Only into the run's own channel and thread: a result never chooses where anything is posted.
  if (slack && run.channelId && bytes <= MAX_UPLOAD_BYTES && !state.isError && !ctx.signal?.aborted) {
    state.uploads++;
    const tool = safeName(ctx.tool);
    const filename = `${ctx.server}-${tool}-${index}.${extension(mimeType)}`;
    try {
      const { fileId } = await slack.uploadFile({
        channel: run.channelId,
        ...(run.threadTs ? { threadTs: run.threadTs } : {}),
        filename,
        title: `${tool} (MCP server ${ctx.server})`,
        content: Buffer.from(data, "base64"),
      });
      return `[image (${mimeType}, ${bytes} bytes) uploaded to the thread as ${filename}, file ${fileId}]`;
    } catch (err) {
      return `[image (${mimeType}, ${bytes} bytes) returned; uploading it failed: ${errorMessage(err)}]`;
    }
  }
  return `[image (${mimeType}, ${bytes} bytes) returned; not shown]`;
}

/** Letters, digits, `_`, `-` and `.` only, capped: nothing the server wrote reaches Slack raw. */
function safeName(name: string): string {
  const safe = name
    .replace(/[^A-Za-z0-9_.-]/g, "_")
    .replace(/^\.+/, "_")
    .slice(0, MAX_NAME_CHARS);
  return safe === "" ? "tool" : safe;
}

function base64Bytes(data: string): number {
  return Buffer.byteLength(data, "base64");
}

function extension(mimeType: string): string {
  const sub = mimeType.split("/")[1]?.split(/[+;]/)[0]?.toLowerCase() ?? "";
  if (sub === "jpeg") return "jpg";
  return /^[a-z0-9]{1,8}$/.test(sub) ? sub : "bin";
}
