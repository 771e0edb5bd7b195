import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ThreadFile } from "../../src/core/run-identity.ts";
import { createTicketTools } from "../../src/tools/tickets/ticket-tools.ts";
import { DRIVERS, execSql, openTestStore, type TestStore } from "../helpers/pg.ts";
import { json, run, type SlackSandbox, startSlackSandbox, toolCaller } from "./tool-harness.ts";

const ALICE = "U0ALICE";
const BOB = "U0BOB";
const CAROL = "U0CAROL";

const REPORT: ThreadFile = {
  id: "F0REPORT",
  name: "Q3 report.pdf",
  mime: "application/pdf",
  size: 1_258_291,
  sha256: "a".repeat(64),
  permalink: "https://hermes-demo.slack.com/files/U0ALICE/F0REPORT/q3_report.pdf",
};
const SHOT: ThreadFile = {
  id: "F0SHOT",
  name: "Screenshot.png",
  mime: "image/png",
  size: 48_200,
  sha256: "b".repeat(64),
};
const LOG: ThreadFile = {
  id: "F0LOG",
  name: "vpn.log",
  mime: "text/plain",
  size: 812,
  sha256: "c".repeat(64),
};

interface StoredAttachment {
  fileId: string;
  name: string;
  mime: string;
  size: number;
  sha256: string;
  permalink?: string;
  addedBy: string;
  addedAt: string;
}

describe.each(DRIVERS)("ticket attachments on %s", (kind) => {
  let store: TestStore;
  let sandbox: SlackSandbox;
  let call: ReturnType<typeof toolCaller>;

  beforeAll(async () => {
    store = await openTestStore(kind);
    sandbox = await startSlackSandbox([
      { id: ALICE, name: "alice" },
      { id: BOB, name: "bob" },
      { id: CAROL, name: "carol" },
    ]);
    const tools = createTicketTools({ db: store.handle.db, slack: sandbox.slack, isAdmin: () => false });
    call = toolCaller(tools);
  });
  afterAll(async () => {
    await sandbox?.stop();
    await store?.cleanup();
  });
  beforeEach(async () => {
    await execSql(store.handle.db, "TRUNCATE tickets RESTART IDENTITY");
  });

  const stored = async (id = 1) => {
    const [row] = await execSql<{ attachments: StoredAttachment[] }>(
      store.handle.db,
      `SELECT attachments FROM tickets WHERE id = ${id}`,
    );
    return row!.attachments;
  };
  const ticketCount = async () =>
    (await execSql<{ n: number }>(store.handle.db, "SELECT count(*)::int AS n FROM tickets"))[0]!.n;

  it('create_ticket attaches "all" the conversation\'s files, by reference, once each', async () => {
    const created = json(
      await call(
        "create_ticket",
        { title: "VPN drops every hour", attach_files: "all" },
        run(ALICE, { files: [REPORT, SHOT, REPORT] }),
      ),
    );
    expect(created).toMatchObject({ created: "#1", attached: ["Q3 report.pdf", "Screenshot.png"] });
    expect(await stored()).toEqual([
      {
        fileId: "F0REPORT",
        name: "Q3 report.pdf",
        mime: "application/pdf",
        size: 1_258_291,
        sha256: REPORT.sha256,
        permalink: REPORT.permalink,
        addedBy: ALICE,
        addedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      },
      {
        fileId: "F0SHOT",
        name: "Screenshot.png",
        mime: "image/png",
        size: 48_200,
        sha256: SHOT.sha256,
        addedBy: ALICE,
        addedAt: expect.any(String),
      },
    ]);
  });

  it("attaches by exact name ignoring case, or by file id; a ticket without files has none", async () => {
    const files = { files: [REPORT, SHOT, LOG] };
    json(
      await call(
        "create_ticket",
        { title: "a", attach_files: ["screenshot.PNG", "f0log"] },
        run(ALICE, files),
      ),
    );
    expect((await stored(1)).map((a) => a.fileId)).toEqual(["F0SHOT", "F0LOG"]);
    // One name as a plain string, as models often write it.
    json(await call("create_ticket", { title: "b", attach_files: "Q3 report.pdf" }, run(ALICE, files)));
    expect((await stored(2)).map((a) => a.fileId)).toEqual(["F0REPORT"]);
    const plain = json(await call("create_ticket", { title: "c" }, run(ALICE, files)));
    expect(plain).not.toHaveProperty("attached");
    expect(await stored(3)).toEqual([]);
  });

  it("an unknown name is refused with the files that can be attached, and nothing is created", async () => {
    const result = await call(
      "create_ticket",
      { title: "x", attach_files: ["report.pdf"] },
      run(ALICE, { files: [REPORT, SHOT] }),
    );
    expect(result.ok).toBe(false);
    expect(result.content).toBe(
      'Error from create_ticket: No file "report.pdf" was shared in this conversation. Files that can be attached: Q3 report.pdf (F0REPORT), Screenshot.png (F0SHOT); or "all".',
    );
    expect(await ticketCount()).toBe(0);
  });

  it("two shared files with the same name: the name is refused, the file ids are offered", async () => {
    const other = { ...SHOT, id: "F0SHOT2", sha256: "d".repeat(64) };
    const result = await call(
      "create_ticket",
      { title: "x", attach_files: "screenshot.png" },
      run(ALICE, { files: [SHOT, other] }),
    );
    expect(result.content).toContain(
      '"screenshot.png" names 2 files shared in this conversation (F0SHOT, F0SHOT2); give the file id',
    );
    json(
      await call(
        "create_ticket",
        { title: "x", attach_files: "F0SHOT2" },
        run(ALICE, { files: [SHOT, other] }),
      ),
    );
    expect((await stored()).map((a) => a.fileId)).toEqual(["F0SHOT2"]);
  });

  it("no files in the conversation: a clear sentence, on create and on update", async () => {
    for (const files of [undefined, []]) {
      const result = await call("create_ticket", { title: "x", attach_files: "all" }, run(ALICE, { files }));
      expect(result.ok).toBe(false);
      expect(result.content).toBe(
        "Error from create_ticket: No files were shared in this conversation, so there is nothing to attach. Ask for the file to be shared in this thread first.",
      );
    }
    expect(await ticketCount()).toBe(0);
    json(await call("create_ticket", { title: "x" }, run(ALICE)));
    const update = await call("update_ticket", { id: 1, attach_files: ["vpn.log"] }, run(ALICE));
    expect(update.content).toContain("No files were shared in this conversation");
  });

  it("update_ticket adds only files not on the ticket yet; all already there is 'nothing changed'", async () => {
    json(await call("create_ticket", { title: "x", attach_files: "all" }, run(ALICE, { files: [REPORT] })));
    const later = run(ALICE, { files: [REPORT, SHOT, LOG] });
    const updated = json(await call("update_ticket", { id: 1, attach_files: "all", comment: "logs" }, later));
    expect(updated).toMatchObject({
      updated: "#1",
      changes: ["comment added", "attached Screenshot.png, vpn.log"],
      already_attached: ["Q3 report.pdf"],
    });
    expect((await stored()).map((a) => a.fileId)).toEqual(["F0REPORT", "F0SHOT", "F0LOG"]);
    const again = await call("update_ticket", { id: 1, attach_files: ["vpn.log", "F0REPORT"] }, later);
    expect(again.ok).toBe(false);
    expect(again.content).toBe(
      "Error from update_ticket: Nothing changed: ticket #1 already has vpn.log, Q3 report.pdf attached.",
    );
    expect(await stored()).toHaveLength(3);
  });

  it("a file attached by someone else between the read and the write is not stored twice", async () => {
    json(await call("create_ticket", { title: "x" }, run(ALICE)));
    const racing = toolCaller(
      createTicketTools({
        db: store.handle.db,
        slack: sandbox.slack,
        // Bob is neither creator nor assignee: the admin check is the pause between read and write.
        isAdmin: async () => {
          await execSql(
            store.handle.db,
            `UPDATE tickets SET attachments = '[{"fileId":"F0SHOT","name":"Screenshot.png","mime":"image/png","size":48200,"sha256":"${SHOT.sha256}","addedBy":"${ALICE}","addedAt":"2026-01-01T00:00:00.000Z"}]'`,
          );
          return true;
        },
      }),
    );
    json(await racing("update_ticket", { id: 1, attach_files: "all" }, run(BOB, { files: [SHOT, LOG] })));
    expect((await stored()).map((a) => [a.fileId, a.addedBy])).toEqual([
      ["F0SHOT", ALICE],
      ["F0LOG", BOB],
    ]);
  });

  it("update_ticket's permission rule holds for attachments: a stranger changes nothing", async () => {
    json(await call("create_ticket", { title: "x", assignee: BOB }, run(ALICE)));
    const denied = await call("update_ticket", { id: 1, attach_files: "all" }, run(CAROL, { files: [LOG] }));
    expect(denied.ok).toBe(false);
    expect(denied.content).toContain(
      "Only the ticket's creator, its assignee or an admin may update ticket #1.",
    );
    expect(await stored()).toEqual([]);
    // The assignee may.
    json(await call("update_ticket", { id: 1, attach_files: ["vpn.log"] }, run(BOB, { files: [LOG] })));
    expect((await stored()).map((a) => a.addedBy)).toEqual([BOB]);
  });

  it("get_ticket lists attachments: name, type, size in human units, permalink", async () => {
    json(
      await call(
        "create_ticket",
        { title: "x", attach_files: "all" },
        run(ALICE, { files: [REPORT, SHOT, LOG] }),
      ),
    );
    const t = json<Record<string, unknown>>(await call("get_ticket", { id: 1 }, run(CAROL)));
    expect(t).toMatchObject({ ticket: "#1", title: "x", comments: [] });
    expect(t.attachments).toEqual([
      { name: "Q3 report.pdf", type: "application/pdf", size: "1.2 MB", permalink: REPORT.permalink },
      { name: "Screenshot.png", type: "image/png", size: "47 KB" },
      { name: "vpn.log", type: "text/plain", size: "812 B" },
    ]);
    json(await call("create_ticket", { title: "y" }, run(ALICE)));
    expect(json(await call("get_ticket", { id: 2 }, run(CAROL))).attachments).toEqual([]);
  });

  it("rejects a malformed attach_files before anything runs", async () => {
    const empty = await call("create_ticket", { title: "x", attach_files: [] }, run(ALICE, { files: [LOG] }));
    expect(empty.ok).toBe(false);
    expect(empty.content).toContain("attach_files");
    expect(await ticketCount()).toBe(0);
  });
});
