import { describe, expect, it } from "vitest";
import { renderMcpResult } from "../../src/mcp/mcp-result.ts";
import type { SlackPort } from "../../src/tools/slack-port.ts";
import { run } from "./mcp-harness.ts";

const ctx = { server: "wiki", tool: "get-page", run: run() };
const png = Buffer.from("89504e470d0a1a0a0000", "hex").toString("base64");

describe("MCP results as the model reads them", () => {
  it("joins text blocks and adds structured content the text does not carry", async () => {
    const text = await renderMcpResult(
      {
        content: [
          { type: "text", text: "Weather report." },
          { type: "text", text: "See the data." },
        ],
        structuredContent: { temperature: 21, city: "Oslo" },
      },
      ctx,
    );
    expect(text).toBe(
      'Weather report.\n\nSee the data.\n\nStructured content:\n{\n  "temperature": 21,\n  "city": "Oslo"\n}',
    );
  });

  it("does not repeat structured content the text already says", async () => {
    const text = await renderMcpResult(
      {
        content: [{ type: "text", text: "It is 21 degrees in Oslo." }],
        structuredContent: { t: 21, city: "Oslo" },
      },
      ctx,
    );
    expect(text).toBe("It is 21 degrees in Oslo.");
  });

  it("lists links and embedded resources, notes binary content", async () => {
    const text = await renderMcpResult(
      {
        content: [
          { type: "resource_link", uri: "wiki://page/1", name: "Page 1", mimeType: "text/html" },
          { type: "resource", resource: { uri: "wiki://page/2", mimeType: "text/plain", text: "body" } },
          {
            type: "resource",
            resource: { uri: "wiki://file/3", blob: Buffer.from("abc").toString("base64") },
          },
          { type: "audio", data: Buffer.from("abcd").toString("base64"), mimeType: "audio/wav" },
          { type: "image", data: png, mimeType: "image/png" },
        ],
      },
      ctx,
    );
    expect(text.split("\n\n")).toEqual([
      "[resource link: Page 1 <wiki://page/1> (text/html)]",
      "[resource wiki://page/2 (text/plain)]\nbody",
      "[resource wiki://file/3: 3 bytes of binary data; not shown]",
      "[audio (audio/wav, 4 bytes) returned; not shown]",
      "[image (image/png, 10 bytes) returned; not shown]",
    ]);
  });

  it("uploads images only into the run's own thread, and says so when that fails", async () => {
    const uploads: Array<{ channel: string; threadTs?: string; filename: string }> = [];
    const slack = {
      uploadFile: async (input: { channel: string; threadTs?: string; filename: string }) => {
        uploads.push(input);
        if (uploads.length > 1) throw new Error("files:write missing");
        return { fileId: "F1" };
      },
    } as unknown as SlackPort;
    const inThread = { ...ctx, slack, run: run({ channelId: "C1", threadTs: "1.2" }) };
    const result = { content: [{ type: "image" as const, data: png, mimeType: "image/png" }] };
    expect(await renderMcpResult(result, inThread)).toBe(
      "[image (image/png, 10 bytes) uploaded to the thread as wiki-get-page-1.png, file F1]",
    );
    expect(uploads[0]).toMatchObject({ channel: "C1", threadTs: "1.2", filename: "wiki-get-page-1.png" });
    expect(await renderMcpResult(result, inThread)).toBe(
      "[image (image/png, 10 bytes) returned; uploading it failed: files:write missing]",
    );
    // No channel (a scheduled run without one): nothing is posted anywhere.
    expect(await renderMcpResult(result, { ...ctx, slack })).toBe(
      "[image (image/png, 10 bytes) returned; not shown]",
    );
    expect(uploads).toHaveLength(2);
  });

  it("uploads at most 4 images per call, none for an error result or an aborted call, with a clean file name", async () => {
    const uploads: Array<{ filename: string; title: string }> = [];
    const slack = {
      uploadFile: async (input: { filename: string; title: string }) => {
        uploads.push(input);
        return { fileId: `F${uploads.length}` };
      },
    } as unknown as SlackPort;
    const hostile = { ...ctx, tool: "../../<!channel> evil\nname", slack, run: run({ channelId: "C1" }) };
    const image = { type: "image" as const, data: png, mimeType: "image/png" };
    const six = await renderMcpResult({ content: Array.from({ length: 6 }, () => image) }, hostile);
    expect(uploads).toHaveLength(4);
    expect(six).toContain("not uploaded (only the first 4 images of a call are)");
    for (const { filename, title } of uploads) {
      expect(filename).toMatch(/^wiki-[A-Za-z0-9_.-]+-\d\.png$/);
      expect(title).not.toMatch(/[<>\n/]/);
    }
    await renderMcpResult({ content: [image], isError: true }, hostile);
    const aborted = new AbortController();
    aborted.abort();
    await renderMcpResult({ content: [image] }, { ...hostile, signal: aborted.signal });
    expect(uploads).toHaveLength(4);
  });
});
