import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config.ts";
import { DEMO } from "../../../src/sandbox/seed-demo-workspace.ts";
import type { SandboxMessage } from "../../../src/sandbox/workspace-types.ts";
import { registerHermesCommand } from "../../../src/slack/commands/hermes-command.ts";
import {
  type BoltHarness,
  blocksText,
  eventually,
  failedCalls,
  type HarnessServices,
  startBoltHarness,
} from "../../helpers/bolt-app.ts";
import {
  type FamilyKind,
  type FamilyOptions,
  type FamilyServer,
  startFamilyServer,
} from "../../helpers/model-server-families.ts";

const MODEL = "Qwen/Qwen2.5-7B-Instruct";
const KEY = "slack-probe-key-93c1f0e2aa";
let h: BoltHarness;
/** What `/hermes` reads its config from: swapped per test to point at a family server. */
let live: HarnessServices;
let server: FamilyServer | undefined;

beforeAll(async () => {
  h = await startBoltHarness((app, services) => {
    live = { ...services };
    registerHermesCommand(app, live);
  });
});

afterAll(() => h.stop());

beforeEach(() => {
  h.emulator.clearCalls();
});

afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function serve(kind: FamilyKind, chatDelayMs = 0, options: FamilyOptions = {}): Promise<FamilyServer> {
  server = await startFamilyServer(kind, { ...options, model: MODEL, chatDelayMs });
  live.config = loadConfig({
    HERMES_ADMINS: DEMO.admin,
    OPENAI_BASE_URL: server.baseURL,
    HERMES_MODEL: MODEL,
    OPENAI_API_KEY: KEY,
  });
  return server;
}

const ephemerals = (user: string) => h.emulator.workspace.ephemeralMessages(DEMO.ops, user);

/** `/hermes model` as `user`: how long the ack took, and the `count` ephemeral answers that follow. */
async function hermesModel(
  user: string,
  count: number,
): Promise<{ ackMs: number; messages: SandboxMessage[] }> {
  const before = ephemerals(user).length;
  const started = Date.now();
  const delivery = await h.sender.slashCommand({ user, channel: DEMO.ops, text: "model" });
  const ackMs = Date.now() - started;
  expect(delivery.status).toBe(200);
  await eventually(() => ephemerals(user)[before + count - 1]);
  return { ackMs, messages: ephemerals(user).slice(before) };
}

function expectWithinSlackLimits(message: SandboxMessage | undefined) {
  expect(message?.blocks?.length ?? 0).toBeGreaterThan(0);
  expect(message?.blocks?.length ?? 0).toBeLessThanOrEqual(50);
  for (const b of (message?.blocks ?? []) as Array<{ type: string; text?: { text: string } }>) {
    expect(b.text?.text.length ?? 0).toBeLessThanOrEqual(b.type === "header" ? 150 : 3000);
  }
  // Answered through the response_url (no fallback post), and nothing Slack would refuse.
  expect(h.emulator.callsTo("chat.postEphemeral")).toEqual([]);
  expect(failedCalls(h.emulator)).toEqual([]);
}

describe("/hermes model as an admin", () => {
  it("acks at once, says the check started, then a section per finding and the verdict", async () => {
    const s = await serve("vllm", 400);
    const { ackMs, messages } = await hermesModel(DEMO.admin, 2);
    // Six model requests of 400 ms each: the ack did not wait for any of them.
    expect(ackMs).toBeLessThan(400);
    const [started, report] = messages;
    expect(started?.text).toContain(`Checking \`${MODEL}\` at ${s.baseURL} with the bot's 5 tool specs`);
    expectWithinSlackLimits(report);
    expect(report?.text).toBe("verdict: ready (native tool calls)");
    const sections = ((report?.blocks ?? []) as Array<{ type: string; text?: { text: string } }>)
      .filter((b) => b.type === "section")
      .map((b) => b.text?.text ?? "");
    expect(sections.map((t) => t.split("\n")[0])).toEqual([
      "*endpoint*",
      "*models*",
      "*server*",
      "*context window*",
      "*tool calling*",
      "*text format*",
      "*tool results*",
      "*streaming*",
      "*streamed calls*",
      "*images*",
      "*latency*",
      ":large_green_circle: *verdict: ready (native tool calls)*",
    ]);
    const text = blocksText(report?.blocks);
    expect(text).toContain("Model check: Qwen/Qwen2.5-7B-Instruct");
    expect(text).toContain("vLLM (owned_by: vllm)");
    expect(text).toContain("32768 tokens (GET /v1/models max_model_len)");
    expect(text).toMatch(/p50 \d+ ms over 3 probes/);
    expect(text).not.toContain(KEY);
    // The registry's own tools were offered (the harness's four), plus the probe's get_current_time.
    const offered = s.chats()[0]?.body.tools?.map((t) => t.function.name);
    expect(offered).toEqual([
      "search_tickets",
      "create_ticket",
      "send_message",
      "delete_ticket",
      "get_current_time",
    ]);
    expect(s.chats()[0]?.body.messages?.[0]).toMatchObject({ role: "system" });
  });

  it("calls recovered from text: the verdict says so and what to change", async () => {
    await serve("vllm-text");
    const { messages } = await hermesModel(DEMO.admin, 2);
    const report = messages[1];
    expectWithinSlackLimits(report);
    expect(report?.text).toBe("verdict: works (calls recovered from text: hermes_json)");
    const text = blocksText(report?.blocks);
    expect(text).toContain(":large_yellow_circle: *verdict: works (calls recovered from text: hermes_json)*");
    expect(text).toContain(
      "*What to change:* Hermes reads these calls itself; native calls are more reliable. Start vLLM with --enable-auto-tool-choice --tool-call-parser hermes.",
    );
  });

  it("streaming and images: what the server did with stream: true and with a picture", async () => {
    await serve("vllm", 0, { stream: "refuses", images: "takes" });
    const { messages } = await hermesModel(DEMO.admin, 2);
    const report = messages[1];
    expectWithinSlackLimits(report);
    const text = blocksText(report?.blocks);
    expect(text).toContain(
      "*streaming*\nno: HTTP 400 to stream: true (stream is not supported by this server); Hermes asks unstreamed instead",
    );
    expect(text).toContain("*streamed calls*\nnot tried (no stream)");
    expect(text).toContain('*images*\nyes: named the colour of a 16×16 red test picture ("Red.")');
  });

  it("a reply in a syntax no reader knows: the raw sample as code, escaped for Slack, the family and the flag", async () => {
    await serve("unknown-markup", 0, { markup: '<xyz_call>{"name": "lookup_weather", ```x``` <!here> &' });
    const { messages } = await hermesModel(DEMO.admin, 2);
    const report = messages[1];
    expectWithinSlackLimits(report);
    const text = blocksText(report?.blocks);
    expect(text).toContain(
      '*raw sample*\n```&lt;xyz_call&gt;{"name": "lookup_weather", `\u200b`\u200b`x`\u200b`\u200b` &lt;!here&gt; &amp;```',
    );
    expect(text).not.toContain("<xyz_call>");
    expect(text).not.toContain("<!here>");
    expect(text).toContain(
      "*likely family*\nHermes / Qwen (&lt;tool_call&gt; JSON): from the model's name (the server does not show its chat template)",
    );
    expect(text).toContain(
      ":red_circle: *verdict: not usable (the model wrote something that looks like a tool call (&lt;xyz_call&gt;)",
    );
    expect(text).toContain(
      "*What to change:* Start vLLM with --enable-auto-tool-choice --tool-call-parser hermes.",
    );
  });

  it("a server answering HTML: not usable, the page's start escaped for Slack", async () => {
    await serve("garbage");
    const { messages } = await hermesModel(DEMO.admin, 2);
    const report = messages[1];
    expectWithinSlackLimits(report);
    const text = blocksText(report?.blocks);
    expect(text).toContain(":red_circle: *verdict: not usable (");
    expect(text).toContain("not a chat completion: text/html; charset=utf-8: &lt;!doctype html&gt;");
    expect(text).not.toContain("<!doctype");
  });

  it("without a model configured: one sentence on what to set, no check", async () => {
    live.config = loadConfig({ HERMES_ADMINS: DEMO.admin });
    const { messages } = await hermesModel(DEMO.admin, 1);
    expect(messages[0]?.text).toContain("No model is configured");
    expect(messages[0]?.text).toContain("OPENAI_BASE_URL");
  });
});

describe("/hermes model as a member", () => {
  it("is refused like audit: one sentence, audited, and the model is never asked", async () => {
    const s = await serve("vllm");
    const { messages } = await hermesModel(DEMO.user, 1);
    expect(messages).toHaveLength(1);
    expect(messages[0]?.text).toBe("Only admins can check the model.");
    const { rows } = await h.services.storage.audit.query({ user: DEMO.user, action: "tool.denied" });
    expect(rows[0]).toMatchObject({
      tool: "/hermes",
      userId: DEMO.user,
      channelId: DEMO.ops,
      args: { subcommand: "model" },
      error: "Only admins can check the model.",
    });
    expect(s.requests).toEqual([]);
  });
});

describe("/hermes help", () => {
  it("lists model among the subcommands", async () => {
    const before = ephemerals(DEMO.user).length;
    await h.sender.slashCommand({ user: DEMO.user, channel: DEMO.ops, text: "help" });
    const help = await eventually(() => ephemerals(DEMO.user)[before]);
    expect(blocksText(help.blocks)).toContain("`/hermes model` — check the configured model");
  });
});
