import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { assistantThreadsOf } from "../../src/sandbox/assistant-threads.ts";
import { compareTs } from "../../src/sandbox/message-ts.ts";
import { loadPersistedWorkspace, type PersistedWorkspace } from "../../src/sandbox/persisted-workspace.ts";
import { DEMO } from "../../src/sandbox/seed-demo-workspace.ts";
import type { Workspace } from "../../src/sandbox/workspace.ts";
import { readKeptWorkspace } from "../../src/sandbox/workspace-journal.ts";
import { WorkspaceStateBuilder } from "../../src/sandbox/workspace-state-builder.ts";
import { captureLog } from "../helpers/trace-capture.ts";

/**
 * The sandbox workspace's folder: every change is journaled as it happens, so a process that dies
 * without closing anything (kill -9) is read back exactly; a torn last line is ignored; anything else
 * unreadable gives a fresh demo workspace with one warning.
 */
describe("the persisted sandbox workspace", () => {
  let root: string;
  let dir: string;
  const open: PersistedWorkspace[] = [];
  const load = (o: { compactAfterBytes?: number; dataExisted?: boolean } = {}) => {
    const log = captureLog("info");
    const kept = loadPersistedWorkspace({ dir, logger: log.logger, ...o });
    open.push(kept);
    return { kept, warnings: () => log.lines.filter((l) => l.level === 40) };
  };
  /** Everything a page or the bot could read back. */
  const snapshot = (ws: Workspace) => ({
    ...ws.exportState(),
    lastTs: undefined,
    threads: assistantThreadsOf(ws).all(),
    bytes: ws.exportState().files.map((f) => ws.getFile(f.id)?.bytes.toString("utf8")),
  });

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "hermes-sandbox-ws-"));
    dir = join(root, "sandbox");
  });
  afterEach(() => {
    for (const kept of open.splice(0)) kept.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** A busy workspace: a thread, an edit, a deleted reply, a tombstone, a file, a view, 👍, an assistant thread. */
  function fill(ws: Workspace) {
    const parent = ws.post({ channel: DEMO.general, user: DEMO.user, text: "where is the printer?" });
    ws.post({ channel: DEMO.general, botId: DEMO.botId, user: DEMO.bot, text: "3F", threadTs: parent.ts });
    const gone = ws.post({ channel: DEMO.general, user: DEMO.admin, text: "typo", threadTs: parent.ts });
    ws.deleteMessage(DEMO.general, gone.ts);
    ws.updateMessage(DEMO.general, parent.ts, { text: "where is the printer now?", editedBy: DEMO.user });
    const tomb = ws.post({ channel: DEMO.ops, user: DEMO.user, text: "deploy?" });
    ws.post({ channel: DEMO.ops, user: DEMO.bot, text: "done", threadTs: tomb.ts });
    ws.deleteMessage(DEMO.ops, tomb.ts);
    ws.postEphemeral({ channel: DEMO.ops, user: DEMO.bot, text: "only you", visibleTo: DEMO.user });
    ws.addFile({
      id: "FREPORT0001",
      name: "report.csv",
      title: "report.csv",
      mimetype: "text/csv",
      filetype: "csv",
      size: 0,
      bytes: Buffer.alloc(0),
      uploaded: false,
      user: DEMO.bot,
      created: 1,
      url_private: "http://127.0.0.1/files/FREPORT0001/report.csv",
      url_private_download: "http://127.0.0.1/files/FREPORT0001/report.csv?download=1",
      permalink: "http://127.0.0.1/files/FREPORT0001/report.csv",
      channels: [],
    });
    ws.storeFileBytes("FREPORT0001", Buffer.from("id,title\n1,printer\n"));
    const file = ws.shareFile("FREPORT0001", DEMO.general)!;
    ws.post({ channel: DEMO.general, user: DEMO.bot, text: "the report", files: [file] });
    ws.publishView(DEMO.user, {
      id: "V1",
      team_id: DEMO.team,
      type: "home",
      blocks: [],
      private_metadata: "",
      callback_id: "",
      external_id: "",
      hash: "h",
      app_id: DEMO.appId,
      bot_id: DEMO.botId,
    });
    const answer = ws.post({ channel: DEMO.dmUser, user: DEMO.bot, text: "answer" });
    ws.clickFeedback(
      { channel: DEMO.dmUser, ts: answer.ts, user: DEMO.user, actionId: "hermes.feedback" },
      "up",
    );
    const thread = assistantThreadsOf(ws).open(DEMO.user, DEMO.general);
    assistantThreadsOf(ws).set(thread.channel, thread.threadTs, { title: "Printer" });
    ws.joinChannel(DEMO.ops, "U0NEW");
  }

  it("reads back what was journaled, without a close (as after kill -9), and hands out later ts", () => {
    const first = load().kept;
    first.start();
    fill(first.workspace);
    const before = snapshot(first.workspace);
    const newest = first.workspace.nextTs.last();

    const { kept: second, warnings } = load();
    expect(snapshot(second.workspace)).toEqual(before);
    expect(second.workspace.ephemeralMessages(DEMO.ops)).toEqual([]);
    expect(compareTs(second.workspace.post({ channel: DEMO.ops, text: "next" }).ts, newest)).toBe(1);
    expect(warnings()).toEqual([]);
  });

  it("keeps handing out later ts than a deleted newest message's", () => {
    const first = load().kept;
    first.start();
    const last = first.workspace.post({ channel: DEMO.ops, text: "soon deleted" });
    first.workspace.deleteMessage(DEMO.ops, last.ts);
    first.close();
    const second = load().kept;
    second.start();
    second.close();
    const third = load().kept;
    expect(compareTs(third.workspace.post({ channel: DEMO.ops, text: "after" }).ts, last.ts)).toBe(1);
  });

  it("ignores a torn last line (a kill mid-write), and compacts it away at the next start", () => {
    const first = load().kept;
    first.start();
    const kept = first.workspace.post({ channel: DEMO.general, text: "acknowledged" });
    const journal = readdirSync(dir).find((n) => n.startsWith("journal-"))!;
    appendFileSync(join(dir, journal), '{"kind":"message","message":{"ts":"17');
    const { kept: second, warnings } = load();
    expect(second.workspace.getMessage(DEMO.general, kept.ts)?.text).toBe("acknowledged");
    expect(warnings()).toEqual([]);
    second.start();
    expect(readdirSync(dir).filter((n) => n.startsWith("journal-"))).toEqual(["journal-2.jsonl"]);
    expect(readFileSync(join(dir, "journal-2.jsonl"), "utf8")).toBe("");
  });

  it("a damaged line inside the journal: a fresh demo workspace, one warning, the old folder moved aside", () => {
    const first = load().kept;
    first.start();
    first.workspace.post({ channel: DEMO.general, text: "one" });
    const journal = join(dir, readdirSync(dir).find((n) => n.startsWith("journal-"))!);
    writeFileSync(journal, `not json\n${readFileSync(journal, "utf8")}`);
    const { kept: second, warnings } = load();
    expect(second.workspace.history(DEMO.general)).toEqual([]);
    second.start();
    expect(second.workspace.getUser(DEMO.user)?.real_name).toBe("Li Ming");
    expect(warnings()).toHaveLength(1);
    expect(String(warnings()[0]!.msg)).toContain("starting a fresh demo workspace");
    expect(existsSync(join(`${dir}.unreadable`, "workspace.json"))).toBe(true);
    expect(readKeptWorkspace(dir).kind).toBe("kept");
  });

  it.each([
    ["not JSON", "{"],
    [
      "another shape",
      JSON.stringify({ format: "hermes-sandbox-workspace", generation: 1, state: { version: 2 } }),
    ],
  ])("a workspace.json that is %s: a fresh demo workspace with one warning", (_what, text) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "workspace.json"), text);
    const { kept, warnings } = load();
    expect(kept.workspace.listChannels().map((c) => c.id)).toContain(DEMO.general);
    kept.start();
    expect(warnings()).toHaveLength(1);
  });

  it("a missing folder beside an existing database is a warning; on a first start it is not", () => {
    const first = load();
    first.kept.start();
    expect(first.warnings()).toEqual([]);
    rmSync(dir, { recursive: true, force: true });
    const { kept, warnings } = load({ dataExisted: true });
    kept.start();
    expect(warnings()).toHaveLength(1);
    expect(String(warnings()[0]!.msg)).toContain("No sandbox workspace found");
  });

  it("compacts into a new generation once the journal is big, and reads back the same", () => {
    const first = load({ compactAfterBytes: 4096 }).kept;
    first.start();
    for (let i = 0; i < 40; i++)
      first.workspace.post({ channel: DEMO.general, text: `message ${i} ${"x".repeat(100)}` });
    const generation = readKeptWorkspace(dir);
    expect(generation.kind === "kept" && generation.generation).toBeGreaterThan(1);
    expect(readdirSync(dir).filter((n) => n.startsWith("journal-"))).toHaveLength(1);
    const second = load().kept;
    expect(second.workspace.history(DEMO.general).map((m) => m.text)).toEqual(
      first.workspace.history(DEMO.general).map((m) => m.text),
    );
  });

  it("keeps each channel's newest threads with their replies, and only the files they show", () => {
    const first = load().kept;
    first.start();
    fill(first.workspace);
    const ws = first.workspace;
    for (let i = 0; i < 3; i++) ws.post({ channel: DEMO.general, text: `later ${i}` });
    const state = new WorkspaceStateBuilder({ ...ws.exportState(), assistantThreads: [] }).build(2);
    const general = state.messages.filter((m) => m.channel === DEMO.general).map((m) => m.text);
    expect(general).toEqual(["later 1", "later 2"]);
    expect(state.files).toEqual([]);
    expect(state.messages.filter((m) => m.channel === DEMO.ops).map((m) => m.text)).toEqual([
      "This message was deleted.",
      "done",
    ]);
  });
});
