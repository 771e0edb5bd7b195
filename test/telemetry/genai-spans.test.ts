import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { answer, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";
import { type ReceivedSpan, startOtlpReceiver } from "./otlp-receiver.ts";

type Block = { type: string; elements?: Array<{ value?: string }> };

const botReplies = (t: TestHermes, channel: string, ts: string) =>
  (t.thread(channel, ts) ?? []).filter((m) => m.user === "U0HERMES" && m.ts !== ts);
const cardOf = (t: TestHermes, channel: string, ts: string) =>
  botReplies(t, channel, ts).find((m) => ((m.blocks ?? []) as Block[]).some((b) => b.type === "actions"));

/** The spans of one thread's turn, once its run span and every child of the trace have arrived. */
async function traceOfTurn(spans: ReceivedSpan[], sessionKey: string): Promise<ReceivedSpan[]> {
  return waitFor(
    () => {
      const run = spans.find(
        (s) => s.name === "invoke_agent hermes" && s.attributes["gen_ai.conversation.id"] === sessionKey,
      );
      if (!run) return undefined;
      const trace = spans.filter((s) => s.traceId === run.traceId);
      const chats = trace.filter((s) => s.name.startsWith("chat "));
      const tools = trace.filter((s) => s.name.startsWith("execute_tool "));
      const event = trace.find((s) => s.name.startsWith("slack.event "));
      return chats.length >= 2 && tools.length >= 1 && event ? trace : undefined;
    },
    30_000,
    `spans of ${sessionKey}`,
  );
}

/** A turn's spans, exported over OTLP/HTTP to a collector, through the real Bolt app and worker. */
describe.each([
  { content: false, name: "contents not opted in" },
  { content: true, name: "contents opted in (redacted)" },
])("OpenTelemetry GenAI spans, $name", ({ content }) => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  let collector: Awaited<ReturnType<typeof startOtlpReceiver>>;
  beforeAll(async () => {
    collector = await startOtlpReceiver();
    await model.start();
    t = await startTestHermes({
      model,
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_BSP_SCHEDULE_DELAY: "20",
        OTEL_SERVICE_NAME: "hermes-test",
        ...(content ? { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true" } : {}),
      },
    });
  }, 180_000);
  afterAll(async () => {
    await t?.stop();
    await model.stop();
    await collector?.stop();
  });

  it("one trace from the Slack event to the answer: event → invoke_agent → chat ×2 → execute_tool", async () => {
    model.enqueue(
      toolCalls([{ name: "get_current_time", args: {}, id: "call_time_1" }]),
      answer("It is noon."),
    );
    const d = await t.sender.appMention({
      user: "U0USER1",
      channel: "C0OPS",
      text: "<@U0HERMES> what time is it? mail me at li.ming@example.com",
    });
    const ts = d.message!.ts;
    await waitFor(() => botReplies(t, "C0OPS", ts).find((m) => m.text === "It is noon."), 30_000, "answer");
    const sessionKey = `T0001:C0OPS:${ts}`;
    const trace = await traceOfTurn(collector.spans, sessionKey);

    const event = trace.find((s) => s.name === "slack.event app_mention")!;
    const run = trace.find((s) => s.name === "invoke_agent hermes")!;
    const chats = trace.filter((s) => s.name === "chat scripted");
    const tool = trace.find((s) => s.name === "execute_tool get_current_time")!;
    expect(event.parentSpanId).toBeUndefined();
    expect(event.service).toBe("hermes-test");
    expect(run.parentSpanId).toBe(event.spanId);
    expect(run.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "hermes",
      "gen_ai.conversation.id": sessionKey,
    });
    expect(run.attributes["hermes.run.id"]).toEqual(expect.any(String));

    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(chat.parentSpanId).toBe(run.spanId);
      expect(chat.kind).toBe(3); // SPAN_KIND_CLIENT
      expect(chat.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "scripted",
        "gen_ai.response.model": "scripted",
        "gen_ai.usage.input_tokens": 100,
        "gen_ai.usage.output_tokens": 20,
      });
    }
    expect(chats.map((c) => c.attributes["gen_ai.response.finish_reasons"]).sort()).toEqual([
      ["stop"],
      ["tool_calls"],
    ]);

    expect(tool.parentSpanId).toBe(run.spanId);
    expect(tool.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "get_current_time",
      "gen_ai.tool.call.id": "call_time_1",
      "hermes.tool.outcome": "ok",
    });

    // The worker's Slack Web API calls (the answer's post or update) are children of the run.
    const slackCalls = await waitFor(
      () => {
        const calls = collector.spans.filter(
          (s) => s.traceId === run.traceId && s.name.startsWith("slack chat."),
        );
        return calls.length > 0 ? calls : undefined;
      },
      10_000,
      "Slack call spans",
    );
    expect(slackCalls[0]!.attributes).toMatchObject({
      "rpc.system": "slack_web_api",
      "slack.channel.id": "C0OPS",
      "slack.rate_limited.count": 0,
    });

    const chatWithAnswer = chats.find(
      (c) => c.attributes["gen_ai.response.finish_reasons"]?.toString() === "stop",
    )!;
    if (!content) {
      for (const s of trace) {
        expect(s.attributes["gen_ai.input.messages"]).toBeUndefined();
        expect(s.attributes["gen_ai.output.messages"]).toBeUndefined();
      }
      expect(JSON.stringify(trace)).not.toContain("what time is it");
    } else {
      const input = String(chatWithAnswer.attributes["gen_ai.input.messages"]);
      expect(input).toContain("what time is it?");
      expect(input).not.toContain("li.ming@example.com");
      expect(String(chatWithAnswer.attributes["gen_ai.output.messages"])).toContain("It is noon.");
    }
  }, 60_000);

  it("an approval's wait, and the resumed part of the run with its model call", async () => {
    model.enqueue(toolCalls([{ name: "send_message", args: { to: "<@U0WANGLEI>", text: "Join at three" } }]));
    const d = await t.sender.appMention({
      user: "U0USER1",
      channel: "C0OPS",
      text: "<@U0HERMES> tell Wang Lei",
    });
    const ts = d.message!.ts;
    const card = await waitFor(() => cardOf(t, "C0OPS", ts), 30_000, "approval card");
    model.enqueue(answer("Told Wang Lei."));
    const approvalId = (card.blocks as Block[]).find((b) => b.type === "actions")!.elements![0]!.value!;
    await t.sender.blockAction({
      user: "U0USER1",
      actionId: "hermes.approve",
      value: approvalId,
      channel: "C0OPS",
      messageTs: card.ts,
    });
    await waitFor(
      () => botReplies(t, "C0OPS", ts).find((m) => m.text === "Told Wang Lei."),
      30_000,
      "answer",
    );
    const sessionKey = `T0001:C0OPS:${ts}`;
    const wait = await waitFor(
      () =>
        collector.spans.find(
          (s) =>
            s.name === "approval_wait send_message" && s.attributes["gen_ai.conversation.id"] === sessionKey,
        ),
      10_000,
      "approval wait span",
    );
    expect(wait.attributes).toMatchObject({
      "hermes.approval.id": approvalId,
      "hermes.approval.outcome": "approved",
    });
    const runId = wait.attributes["hermes.run.id"];
    const resumed = await waitFor(
      () => {
        const span = collector.spans.find(
          (s) =>
            s.name === "invoke_agent hermes" &&
            s.attributes["hermes.resume.reason"] === "decided" &&
            s.attributes["hermes.run.id"] === runId,
        );
        const chat =
          span && collector.spans.find((s) => s.parentSpanId === span.spanId && s.name === "chat scripted");
        return chat ? { span, chat } : undefined;
      },
      10_000,
      "resumed run span",
    );
    expect(resumed.chat.attributes["gen_ai.response.finish_reasons"]).toEqual(["stop"]);
    const tool = collector.spans.find(
      (s) => s.name === "execute_tool send_message" && s.attributes["hermes.run.id"] === runId,
    );
    expect(tool?.parentSpanId).toBe(resumed.span.spanId);
  }, 60_000);
});
