import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import type pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { postAsUser } from "../../src/sandbox/post-as-user.ts";
import { DEMO } from "../../src/sandbox/seed-demo-workspace.ts";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { testPool } from "../helpers/pg.ts";
import { answer, type RecordedRequest, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";
import { botReplies, messageText } from "../helpers/slack-thread.ts";

const fixture = (name: string) => readFile(new URL(`../fixtures/files/${name}`, import.meta.url));
const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

interface WireUser {
  role: string;
  content: string | Array<{ type: string; text?: string; image_url?: { url: string } }>;
}
/** The request's last user message, as parts: its text and its images' data URLs. */
function lastUser(req: RecordedRequest): { text: string; images: string[] } {
  const m = (req.body.messages as WireUser[]).filter((x) => x.role === "user").at(-1);
  if (!m) return { text: "", images: [] };
  if (typeof m.content === "string") return { text: m.content, images: [] };
  return {
    text: m.content.flatMap((p) => (p.type === "text" ? [p.text ?? ""] : [])).join("\n"),
    images: m.content.flatMap((p) => (p.type === "image_url" ? [p.image_url?.url ?? ""] : [])),
  };
}

/**
 * Files people share, end to end: the real Bolt receiver and worker, the Slack emulator holding the
 * files (files.info, url_private with the bot token, its scopes), Postgres for the audit rows and
 * tickets, and the scripted model recording what it was sent.
 */
describe("files shared with Hermes", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  let db: pg.Pool;
  const sq = <T extends pg.QueryResultRow>(text: string, values: unknown[] = []) =>
    db.query<T>(text, values).then((r) => r.rows);
  const auditOf = (action: string) =>
    sq<{
      tool: string;
      user_id: string;
      run_id: string | null;
      args: Record<string, unknown>;
      error: string | null;
    }>("SELECT tool, user_id, run_id, args, error FROM audit_log WHERE action = $1 ORDER BY id", [action]);

  /** Li Ming mentions Hermes in #ops with files; resolves once Hermes answered in the thread. */
  async function mention(text: string, files: Array<{ name: string; bytes: Buffer }>, answer: RegExp) {
    const said = await t.sender.userSays({
      user: DEMO.user,
      channel: DEMO.ops,
      text: `<@${DEMO.bot}> ${text}`,
      files,
    });
    const ts = said.message.ts;
    const replies = await waitFor(
      () => {
        const r = botReplies(t, DEMO.ops, ts);
        return r.some((m) => answer.test(messageText(m))) ? r : undefined;
      },
      60_000,
      `Hermes's answer to "${text}"`,
    );
    return { ts, replies, message: said.message };
  }

  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({
      model,
      env: { HERMES_MODEL_IMAGES: "on", HERMES_TRANSCRIBE_MODEL: "whisper-scripted" },
    });
    db = testPool({ connectionString: t.db.url, max: 2 });
  }, 180_000);
  afterAll(async () => {
    await db?.end();
    await t?.stop();
    await model.stop();
  });
  beforeEach(() => {
    model.reset();
    t.emulator.scopes.add("files:read");
  });

  it("reads a screenshot, PDF, Word, Excel and CSV file: image parts and fenced text reach the model, each read audited", async () => {
    const files = await Promise.all(
      ["sample.png", "sample.pdf", "sample.docx", "sample.xlsx", "sample.csv"].map(async (name) => ({
        name: name.replace("sample", "incident"),
        bytes: await fixture(name),
      })),
    );
    model.enqueue(answer("Read all five."));
    const { replies } = await mention("what do these say?", files, /Read all five/);
    expect(messageText(replies.at(-1)!)).toContain("Read all five.");
    const sent = lastUser(model.requests[0]!);
    expect(sent.images).toHaveLength(1);
    expect(sent.images[0]).toMatch(/^data:image\/(png|jpeg|webp);base64,/);
    // Each document's text, fenced as untrusted data under its file id.
    expect(sent.text).toContain("what do these say?");
    expect(sent.text).toContain("Quarterly VPN report");
    expect(sent.text).toContain("Request a laptop from IT before the first day.");
    expect(sent.text).toContain('102,"Printer on floor 3, jammed",low,2026-10-04');
    expect(sent.text).toContain("Laptop won't boot, blue screen");
    expect(sent.text.match(/<untrusted source="file:F[A-Z0-9]+">/g)).toHaveLength(4);
    expect(sent.text).toMatch(/\[image "incident\.png" attached/);
    const reads = await auditOf("file.read");
    expect(reads).toHaveLength(5);
    for (const [i, f] of files.entries()) {
      const row = reads[i]!;
      expect(row).toMatchObject({ tool: "files", user_id: DEMO.user });
      expect(row.run_id).toBeTruthy();
      expect(row.args).toMatchObject({ name: f.name, size: f.bytes.length, sha256: sha256(f.bytes) });
    }
    expect(reads.map((r) => r.args.mime)).toEqual([
      expect.stringMatching(/^image\//),
      "application/pdf",
      "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
      "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
      "text/csv",
    ]);
  });

  it("a file in a DM with Hermes is read like one in a channel", async () => {
    model.enqueue(answer("Read your DM file."));
    const said = await t.sender.userSays({
      user: DEMO.user,
      channel: DEMO.dmUser,
      text: "",
      files: [{ name: "dm-notes.csv", bytes: await fixture("sample.csv") }],
    });
    await waitFor(
      () => botReplies(t, DEMO.dmUser, said.message.ts).some((m) => /Read your DM file/.test(messageText(m))),
      60_000,
      "the DM answer",
    );
    expect(lastUser(model.requests[0]!).text).toContain("Laptop won't boot");
    expect((await auditOf("file.read")).at(-1)!.args).toMatchObject({ name: "dm-notes.csv" });
  });

  it("a long file goes in part, and the model pages through the rest with fetch_result", async () => {
    const rows = Array.from({ length: 1500 }, (_, i) => `${i + 1},Ticket number ${i + 1} about the VPN,open`);
    const csv = Buffer.from(`id,title,status\n${rows.join("\n")}\n`);
    let ref = "";
    model.enqueue((req) => {
      const text = lastUser(req).text;
      const m = /fetch_result ref=(res_[A-Za-z0-9_-]+) offset=(\d+)/.exec(text);
      ref = m?.[1] ?? "";
      return toolCalls([{ name: "fetch_result", args: { ref, offset: Number(m?.[2] ?? 0) } }]);
    }, answer("Paged."));
    await mention("how many are open?", [{ name: "all-tickets.csv", bytes: csv }], /Paged/);
    const first = lastUser(model.requests[0]!).text;
    expect(first).toContain("1,Ticket number 1 about the VPN,open");
    expect(first).not.toContain("1500,Ticket number 1500");
    expect(ref).toMatch(/^res_/);
    const tool = model.requests[1]!.body.messages.find((m) => m.role === "tool");
    expect(String(tool?.content)).toMatch(/all-tickets\.csv result, characters \d+–\d+ of \d+/);
  });

  it("transcribes a voice note through the model server's /audio/transcriptions", async () => {
    model.transcribe = () => "The VPN in Shanghai is down again, please open a ticket.";
    model.enqueue(answer("Heard you."));
    const wav = await fixture("sample.wav");
    await mention("listen", [{ name: "voice-note.wav", bytes: wav }], /Heard you/);
    expect(model.transcriptions).toHaveLength(1);
    expect(model.transcriptions[0]!.contentType).toMatch(/^multipart\/form-data/);
    expect(model.transcriptions[0]!.body.toString("latin1")).toContain("whisper-scripted");
    const sent = lastUser(model.requests[0]!);
    expect(sent.text).toMatch(/<untrusted source="file:F[A-Z0-9]+">\nThe VPN in Shanghai is down again/);
    model.transcribe = undefined;
  });

  it("refuses an executable named .pdf with a sentence, audited, and goes on with the rest", async () => {
    const exe = Buffer.concat([Buffer.from("7f454c46020101000000000000000000", "hex"), Buffer.alloc(200)]);
    model.enqueue(answer("Done with what I could read."));
    const before = (await auditOf("file.refused")).length;
    const { replies } = await mention(
      "check these",
      [
        { name: "invoice.pdf", bytes: exe },
        { name: "notes.csv", bytes: await fixture("sample.csv") },
      ],
      /Done with what I could read/,
    );
    const said = replies.map(messageText).join("\n");
    expect(said).toMatch(/invoice\.pdf/);
    expect(said).toContain("Done with what I could read.");
    const refused = (await auditOf("file.refused")).slice(before);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.args).toMatchObject({ name: "invoice.pdf", code: "unreadable" });
    expect(refused[0]!.error).toMatch(/invoice\.pdf/);
    // The model was told too, and still got the CSV.
    const sent = lastUser(model.requests[0]!);
    expect(sent.text).toMatch(/\[file "invoice\.pdf" was not read: /);
    expect(sent.text).toContain("Laptop won't boot");
  });

  it("without files:read it says so in the thread instead of ignoring the file", async () => {
    t.emulator.scopes.delete("files:read");
    model.enqueue(answer("Okay."));
    const { replies } = await mention(
      "summarize this",
      [{ name: "plan.csv", bytes: await fixture("sample.csv") }],
      /Okay/,
    );
    const said = replies.map(messageText).join("\n");
    expect(said).toMatch(/"plan\.csv".*files:read/);
    const refused = await auditOf("file.refused");
    expect(refused.at(-1)!.args).toMatchObject({ name: "plan.csv", code: "missing_scope" });
  });

  it("reads only files shared in this conversation, never a URL an event names", async () => {
    // A file shared in #general; the event in #ops names it, with a download URL elsewhere.
    const elsewhere = postAsUser(t.ws, {
      user: DEMO.wangLei,
      channel: DEMO.general,
      text: "salaries",
      files: [{ name: "salaries.csv", bytes: await fixture("sample.csv") }],
      origin: t.emulator.origin,
    });
    const file = { ...elsewhere.files?.[0], url_private: "http://127.0.0.1:9/steal" };
    const asked = postAsUser(t.ws, { user: DEMO.user, channel: DEMO.ops, text: `<@${DEMO.bot}> read it` });
    model.enqueue(answer("Nothing to read."));
    await t.sender.event({
      type: "app_mention",
      user: DEMO.user,
      channel: DEMO.ops,
      text: `<@${DEMO.bot}> read it`,
      ts: asked.ts,
      team: DEMO.team,
      files: [file],
    });
    const replies = await waitFor(
      () =>
        botReplies(t, DEMO.ops, asked.ts).some((m) => /Nothing to read/.test(messageText(m)))
          ? botReplies(t, DEMO.ops, asked.ts)
          : undefined,
      60_000,
      "the answer",
    );
    expect(replies.map(messageText).join("\n")).toMatch(/"salaries\.csv".*not shared in this conversation/);
    expect(lastUser(model.requests[0]!).text).not.toContain("Laptop won't boot");
    expect((await auditOf("file.refused")).at(-1)!.args).toMatchObject({ code: "not_shared_here" });
  });

  it("a mention mid-thread reads the files shared earlier in the thread, and a ticket attaches them", async () => {
    const root = await t.sender.userSays({
      user: DEMO.wangLei,
      channel: DEMO.ops,
      text: "the VPN error, see screenshot",
      files: [{ name: "vpn-error.png", bytes: await fixture("sample.png") }],
    });
    model.enqueue(
      toolCalls([{ name: "create_ticket", args: { title: "VPN error", attach_files: "all" } }]),
      answer("Opened a ticket with the screenshot."),
    );
    const asked = await t.sender.userSays({
      user: DEMO.user,
      channel: DEMO.ops,
      threadTs: root.message.ts,
      text: `<@${DEMO.bot}> open a ticket for this`,
    });
    await waitFor(
      () => botReplies(t, DEMO.ops, root.message.ts).some((m) => /Opened a ticket/.test(messageText(m))),
      60_000,
      "the ticket answer",
    );
    expect(asked.delivery?.status).toBe(200);
    const sent = lastUser(model.requests[0]!);
    expect(sent.images).toHaveLength(1);
    expect(sent.text).toMatch(/\[image "vpn-error\.png" attached/);
    const [ticket] = await sq<{ attachments: Array<Record<string, unknown>> }>(
      "SELECT attachments FROM tickets WHERE title = 'VPN error'",
    );
    expect(ticket?.attachments).toEqual([
      expect.objectContaining({
        name: "vpn-error.png",
        sha256: sha256(await fixture("sample.png")),
        fileId: expect.stringMatching(/^F/),
      }),
    ]);
  });

  it("with a model that takes no images, says so in one sentence and goes on with the text; asks the model once", async () => {
    const textOnly = new ScriptedModelServer();
    await textOnly.start();
    // The picture question is refused as a text-only server does; everything else is answered.
    textOnly.fallback = (req) =>
      JSON.stringify(req.body.messages).includes("image_url")
        ? { status: 400, body: { error: { message: "This model does not support image input." } } }
        : answer("Understood from the text.");
    const u = await startTestHermes({ model: textOnly, env: { HERMES_MODEL_IMAGES: "auto" } });
    try {
      for (const ask of ["what is this error?", "and this one?"]) {
        const said = await u.sender.userSays({
          user: DEMO.user,
          channel: DEMO.ops,
          text: `<@${DEMO.bot}> ${ask}`,
          files: [{ name: "error.png", bytes: await fixture("sample.png") }],
        });
        const replies = await waitFor(
          () => {
            const r = botReplies(u, DEMO.ops, said.message.ts);
            return r.some((m) => /Understood from the text/.test(messageText(m))) ? r : undefined;
          },
          60_000,
          "the answer",
        );
        expect(replies.map(messageText).join("\n")).toMatch(/can't see images with this model.*"error\.png"/);
      }
      const asked = textOnly.requests.filter((r) => JSON.stringify(r.body.messages).includes("image_url"));
      expect(asked).toHaveLength(1); // the one picture question; no turn sent an image
      const turns = textOnly.requests.filter((r) => !JSON.stringify(r.body.messages).includes("image_url"));
      expect(turns).toHaveLength(2);
      for (const r of turns)
        expect(lastUser(r).text).toMatch(/\[image "error\.png" attached: this model is not shown images\]/);
    } finally {
      await u.stop();
      await textOnly.stop();
    }
  });
});
