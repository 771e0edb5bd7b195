import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { agentSessionsOf } from "../../../src/sandbox/agent-sessions.ts";
import { startTestHermes, type TestHermes, waitFor } from "../../helpers/hermes-harness.ts";
import { execSql } from "../../helpers/pg.ts";
import {
  answer,
  type RecordedRequest,
  ScriptedModelServer,
  toolCalls,
} from "../../helpers/scripted-model.ts";
import { botReplies } from "../../helpers/slack-thread.ts";
import { captureLog } from "../../helpers/trace-capture.ts";

const USER = "U0USER1";
const DM = "D0USER1";

type Msg = RecordedRequest["body"]["messages"][number];
const toolMessage = (request: RecordedRequest, callId: string): Msg | undefined =>
  request.body.messages.find((m) => m.role === "tool" && m.tool_call_id === callId);

/**
 * Hermes in the agent messaging experience (HERMES_SLACK_SURFACE=agent_view, the default): the
 * Messages tab offers prompts, each DM message is a session that Hermes names and moves from
 * processing to active, and what the user looks at (`app_context`, or their last
 * `app_context_changed`) reaches the turn as untrusted context. The real Bolt app over HTTP, the
 * Slack emulator, Postgres and the scripted model.
 */
describe("the agent view", () => {
  const model = new ScriptedModelServer();
  const log = captureLog("debug");
  let t: TestHermes;
  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({ model, logger: log.logger });
  }, 180_000);
  afterAll(async () => {
    await t?.stop();
    await model.stop();
  });
  beforeEach(() => model.reset());
  const sessions = () => agentSessionsOf(t.ws);
  const statuses = (ts: string) =>
    t.emulator
      .callsTo("agents.sessions.setStatus")
      .filter((c) => c.args.thread_ts === ts)
      .map((c) => c.args.status);

  it("opening the Messages tab offers the member's suggested prompts", async () => {
    await t.sender.appHomeOpened({ user: USER, tab: "messages" });
    const prompts = await waitFor(() => sessions().promptsOf(DM), 10_000, "the prompts");
    expect(prompts.title).toBe("Try asking");
    expect(prompts.prompts.map((p) => p.title)).toEqual(["Open a ticket…", "Report of this week's tickets"]);
  });

  it("a message is a session: named from it, processing, then active; the viewed channel reaches the tools, fenced", async () => {
    let seen: RecordedRequest | undefined;
    model.enqueue(toolCalls([{ name: "get_viewed_channel", id: "call_viewed" }]), (request) => {
      seen = request;
      return answer("This is the ops channel.");
    });
    const d = await t.sender.agentMessage({
      user: USER,
      text: "What is *this* channel about? <@U0WANGLEI>",
      viewing: { channel: "C0OPS", messageTs: "1700000000.000100" },
    });
    const ts = d.message!.ts;
    await waitFor(
      () => botReplies(t, DM, ts).find((m) => m.text === "This is the ops channel."),
      30_000,
      "the answer in the message's thread",
    );
    await waitFor(() => statuses(ts).at(-1) === "active", 10_000, "the session active");
    expect(statuses(ts)[0]).toBe("processing");
    expect(sessions().get(DM, ts)).toMatchObject({
      status: "active",
      title: "What is this channel about? U0WANGLEI",
    });
    expect(t.emulator.callsTo("assistant.threads.setStatus")).toEqual([]);

    const described = toolMessage(seen!, "call_viewed")?.content ?? "";
    expect(described).toContain("<#C0OPS>");
    const user = seen!.body.messages.findLast((m) => m.role === "user")!;
    expect(user.content).toContain(
      '<untrusted source="slack-app-context">\nviewing channel: <#C0OPS>\nviewing message: 1700000000.000100 in <#C0OPS>\n</untrusted>',
    );
    const runs = await execSql<{ viewing: unknown }>(
      t.hermes.services.storage.db.db,
      `select snapshot->'run'->'viewing' as viewing from runs where session_key like '%:${ts}'`,
    );
    expect(runs).toEqual([{ viewing: { channelId: "C0OPS", teamId: "T0001" } }]);
  });

  it("without its own context, a message gets what the user last looked at (app_context_changed)", async () => {
    model.enqueue(answer("Noted."));
    await t.sender.appContextChanged({ user: USER, viewing: { channel: "C0GENERAL" } });
    // The change is handled after its ack: the next message waits until it is seen.
    await waitFor(
      () => log.lines.find((l) => l.msg === "the user's app context changed" && l.viewing === "C0GENERAL"),
      10_000,
      "the context change handled",
    );
    const d = await t.sender.agentMessage({ user: USER, text: "and here?" });
    const ts = d.message!.ts;
    await waitFor(() => botReplies(t, DM, ts).find((m) => m.text === "Noted."), 30_000, "the answer");
    const user = model.requests[0]!.body.messages.findLast((m) => m.role === "user")!;
    expect(user.content).toContain("viewing channel: <#C0GENERAL>");
  });

  it("a plain DM (no app_context) keeps the working-message path", async () => {
    model.enqueue(answer("Hello."));
    const d = await t.sender.messageIm({ user: USER, text: "hi" });
    await waitFor(
      () => botReplies(t, DM, d.message!.ts).find((m) => m.text === "Hello."),
      30_000,
      "the answer",
    );
    expect(statuses(d.message!.ts)).toEqual([]);
  });
});
