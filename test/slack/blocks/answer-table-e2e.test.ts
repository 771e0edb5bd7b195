import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestHermes, type TestHermes, waitFor } from "../../helpers/hermes-harness.ts";
import { testPool } from "../../helpers/pg.ts";
import { answer, ScriptedModelServer, toolCalls } from "../../helpers/scripted-model.ts";

type Block = { type: string; text?: unknown; rows?: unknown[][]; chart?: { type: string } };

const ANSWER = [
  "## Tickets this week",
  "",
  "| status | tickets |",
  "|---|---:|",
  "| open | 2 |",
  "| closed | 1 |",
  "",
  "Ask <@U0ADMIN> in <#C0OPS|ops> about the open ones <!channel>.",
].join("\n");

/**
 * A report end to end (Bolt over HTTP, the Web API emulator with its Block Kit checks, Postgres, a
 * scripted model): the tool shows Slack's native chart and sortable table in the thread, and the
 * answer with its Markdown table goes out as a `markdown` block.
 */
describe("an answer with a table, end to end", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({ model });
    const pool = testPool({ connectionString: t.db.url });
    try {
      await pool.query(
        // The demo workspace's tickets (team T0001): a report counts its own team's only.
        "INSERT INTO tickets (team_id, title, created_by, status) VALUES ('T0001', 'a', 'U0USER1', 'open'), ('T0001', 'b', 'U0USER1', 'open'), ('T0001', 'c', 'U0USER1', 'closed')",
      );
    } finally {
      await pool.end();
    }
  }, 180_000);
  afterAll(async () => {
    await t?.stop();
    await model.stop();
  });

  it("the report's data_table and chart, then the answer as a markdown block with its fallback text", async () => {
    model.enqueue(toolCalls([{ name: "ticket_report", args: { period: "7d" } }]));
    model.enqueue(answer(ANSWER));
    const d = await t.sender.appMention({
      user: "U0USER1",
      channel: "C0OPS",
      text: "<@U0HERMES> ticket report",
    });
    const ts = d.message!.ts;
    const replies = () => (t.thread("C0OPS", ts) ?? []).filter((m) => m.user === "U0HERMES" && m.ts !== ts);
    const final = await waitFor(
      () => replies().find((m) => ((m.blocks ?? []) as Block[]).some((b) => b.type === "markdown")),
      60_000,
      "the answer",
    );

    const report = replies().find((m) => ((m.blocks ?? []) as Block[]).some((b) => b.type === "data_table"));
    const reportBlocks = (report?.blocks ?? []) as Block[];
    expect(reportBlocks.map((b) => b.type)).toEqual(["data_visualization", "data_table"]);
    expect(reportBlocks[0]!.chart!.type).toBe("bar");
    // The header, then every status in its natural order (zeros kept).
    expect(reportBlocks[1]!.rows).toHaveLength(4);
    expect(t.emulator.callsTo("files.getUploadURLExternal").map((c) => c.args.filename)).toEqual([
      "tickets-by-status-7d.csv",
    ]);

    const blocks = final.blocks as Block[];
    expect(blocks[0]).toEqual({
      type: "markdown",
      text: ANSWER.replace("<!channel>", "@channel"),
    });
    expect(blocks.at(-1)!.type).toBe("context_actions"); // the 👍/👎 under the answer
    expect(final.text).toContain("<#C0OPS|ops>");
    expect(final.text).toContain("<@U0ADMIN>");
    expect(final.text).not.toContain("<!channel>");
  });
});
