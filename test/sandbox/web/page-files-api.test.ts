import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleFileBytes } from "../../../src/sandbox/sample-files.ts";
import { eventually, type Harness, startHarness } from "./harness.ts";

/**
 * The page's message API with files (what the composer sends): base64 bytes or a sample by name;
 * the bot gets Slack's file_share event; the page serves the file only to who can see it.
 */

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.stop());

function post(body: unknown) {
  return fetch(`${harness.origin}/sandbox/api/messages`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

type FileShare = { type?: string; subtype?: string; ts?: string; files?: Array<Record<string, unknown>> };

describe("POST /sandbox/api/messages with files", () => {
  it("posts base64 files and samples into the bot's DM: the bot gets a file_share message", async () => {
    const csv = Buffer.from("ticket,status\nT-9,open\n");
    const response = await post({
      as: "U0USER1",
      channel: "D0USER1",
      text: "",
      files: [{ name: "open.csv", data: csv.toString("base64") }, { sample: "sample-report.pdf" }],
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as {
      ok: boolean;
      ts: string;
      files: Array<{ id: string; name: string }>;
    };
    expect(answer).toMatchObject({ ok: true, files: [{ name: "open.csv" }, { name: "sample-report.pdf" }] });

    const event = await eventually(() =>
      harness.bot.received
        .map((b) => b.event as FileShare | undefined)
        .find((e) => e?.type === "message" && e.ts === answer.ts),
    );
    expect(event).toMatchObject({ subtype: "file_share", channel_type: "im" });
    expect(event.files?.map((f) => [f.name, f.size])).toEqual([
      ["open.csv", csv.length],
      ["sample-report.pdf", sampleFileBytes("sample-report.pdf")?.length],
    ]);

    const [first] = answer.files;
    const mine = await fetch(`${harness.origin}/sandbox/files/${first?.id}/open.csv?as=U0USER1`);
    expect(Buffer.from(await mine.arrayBuffer()).equals(csv)).toBe(true);
    const other = await fetch(`${harness.origin}/sandbox/files/${first?.id}/open.csv?as=U0WANGLEI`);
    expect(other.status).toBe(404);
  });

  it("lists and serves the sample files", async () => {
    const list = (await (await fetch(`${harness.origin}/sandbox/api/sample-files`)).json()) as {
      files: Array<{ name: string; url: string; size: number }>;
    };
    expect(list.files.map((f) => f.name)).toEqual([
      "sample-screenshot.png",
      "sample-report.pdf",
      "sample-tickets.csv",
    ]);
    const png = await fetch(`${harness.origin}${list.files[0]?.url}`);
    expect(png.headers.get("content-type")).toBe("image/png");
    expect((await png.arrayBuffer()).byteLength).toBe(list.files[0]?.size);
    expect((await fetch(`${harness.origin}/sandbox/sample-files/..%2Fpackage.json`)).status).toBe(404);
  });

  it.each([
    [{ text: "" }, "text: write something first"],
    [{ files: [{ name: "x.txt", data: "" }] }, "x.txt is empty."],
    [{ files: [{ name: "x.txt", data: "not base64!" }] }, "not base64 data"],
    [{ files: [{ sample: "../../package.json" }] }, "files.0"],
    [{ files: Array.from({ length: 11 }, () => ({ sample: "sample-tickets.csv" })) }, "at most 10 files"],
  ])("refuses %j with a sentence: %s", async (body, message) => {
    const response = await post({ as: "U0USER1", channel: "D0USER1", text: "", ...body });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toContain(message);
  });
});
