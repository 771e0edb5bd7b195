import type { WebClient } from "@slack/web-api";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { postAsUser } from "../../src/sandbox/post-as-user.ts";
import { DEMO } from "../../src/sandbox/seed-demo-workspace.ts";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import { sandboxWebClient, startSlackEmulator, TINY_PNG } from "../helpers/slack.ts";

let emulator: SlackApiEmulator;
let client: WebClient;

beforeEach(async () => {
  emulator = await startSlackEmulator();
  client = sandboxWebClient(emulator);
});
afterEach(() => emulator.stop());

describe("file uploads", () => {
  it("runs WebClient.filesUploadV2 end to end and shares the PNG in the thread", async () => {
    const question = postAsUser(emulator.workspace, {
      user: DEMO.admin,
      channel: DEMO.ops,
      text: "<@U0HERMES> chart",
    });
    const result = await client.filesUploadV2({
      channel_id: DEMO.ops,
      thread_ts: question.ts,
      file: TINY_PNG,
      filename: "tickets.png",
      title: "Tickets by week",
      initial_comment: "Here is the chart.",
    });
    expect(result.ok).toBe(true);
    expect(emulator.calls.map((c) => c.method)).toEqual([
      "files.getUploadURLExternal",
      "files.completeUploadExternal",
    ]);
    expect(emulator.callsTo("files.getUploadURLExternal")[0]?.args).toMatchObject({
      filename: "tickets.png",
      length: String(TINY_PNG.length),
    });

    const thread = await client.conversations.replies({ channel: DEMO.ops, ts: question.ts });
    const reply = thread.messages?.[1];
    expect(reply).toMatchObject({ text: "Here is the chart.", bot_id: DEMO.botId, thread_ts: question.ts });
    const file = reply?.files?.[0];
    expect(file).toMatchObject({
      name: "tickets.png",
      title: "Tickets by week",
      mimetype: "image/png",
      filetype: "png",
      size: TINY_PNG.length,
    });
    // As Slack's url_private: the bot token is required.
    const download = await fetch(file?.url_private_download ?? "", {
      headers: { authorization: "Bearer xoxb-test" },
    });
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await download.arrayBuffer()).equals(TINY_PNG)).toBe(true);
    expect((await client.files.info({ file: file?.id ?? "" })).file).toMatchObject({ channels: [DEMO.ops] });
  });

  it("accepts raw bytes at the upload URL, and a CSV from `content`", async () => {
    const { upload_url, file_id } = await client.files.getUploadURLExternal({
      filename: "audit.csv",
      length: 9,
    });
    const uploaded = await fetch(upload_url ?? "", { method: "POST", body: "a,b\n1,2\n\n" });
    expect(await uploaded.text()).toBe("OK - 9");
    await client.files.completeUploadExternal({ files: [{ id: file_id ?? "" }], channel_id: "D0ADMIN" });
    const [message] = emulator.workspace.history("D0ADMIN");
    expect(message?.files?.[0]).toMatchObject({ name: "audit.csv", mimetype: "text/csv", size: 9 });

    await client.filesUploadV2({ channel_id: "D0ADMIN", content: "x,y\n", filename: "more.csv" });
    expect(emulator.workspace.history("D0ADMIN").at(-1)?.files?.[0]).toMatchObject({
      name: "more.csv",
      size: 4,
    });
  });

  it("refuses to complete a file that was never uploaded", async () => {
    const { file_id } = await client.files.getUploadURLExternal({ filename: "x.png", length: 3 });
    await expect(
      client.files.completeUploadExternal({ files: [{ id: file_id ?? "" }], channel_id: DEMO.ops }),
    ).rejects.toMatchObject({ data: { error: "file_not_found" } });
  });
});
