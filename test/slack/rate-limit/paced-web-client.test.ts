import { afterEach, describe, expect, it } from "vitest";
import { DEMO } from "../../../src/sandbox/seed-demo-workspace.ts";
import type { SlackApiEmulator } from "../../../src/sandbox/slack-api-server.ts";
import { CallScheduler } from "../../../src/slack/rate-limit/call-scheduler.ts";
import { PacedWebClient } from "../../../src/slack/rate-limit/paced-web-client.ts";
import { rateKeyOf } from "../../../src/slack/rate-limit/tiers.ts";
import { quietSlackLogger, startSlackEmulator } from "../../helpers/slack.ts";

let emulator: SlackApiEmulator | undefined;
afterEach(() => emulator?.stop());

function pacedClients(e: SlackApiEmulator, rateScale: number) {
  const scheduler = new CallScheduler();
  const common = {
    slackApiUrl: e.url,
    logger: quietSlackLogger(),
    retryConfig: { retries: 0 },
    scheduler,
    rateScale,
  };
  return {
    scheduler,
    client: new PacedWebClient("xoxb-test", { ...common, lane: "deliver" }),
    progress: new PacedWebClient("xoxb-test", { ...common, lane: "progress" }),
  };
}

describe("tiers", () => {
  it("chat.postMessage is budgeted per channel, tiered methods per workspace, unknown ones as tier 2", () => {
    expect(rateKeyOf("chat.postMessage", { channel: "C1" })).toEqual({
      key: "chat.postMessage C1",
      tier: "post_per_channel",
      pace: { perMinute: 60, burst: 2, probe: true },
    });
    expect(rateKeyOf("chat.update", { channel: "C1" }).key).toBe("chat.update");
    expect(rateKeyOf("chat.update", {}).pace.perMinute).toBe(50);
    expect(rateKeyOf("views.publish", {}).tier).toBe("tier4");
    expect(rateKeyOf("some.newMethod", {}).pace.perMinute).toBe(20);
    expect(rateKeyOf("chat.update", {}, 20).pace).toEqual({ perMinute: 1000, burst: 5 });
    expect(() => rateKeyOf("chat.update", {}, 0)).toThrow(/positive number/);
  });
});

describe("PacedWebClient against the emulator enforcing Slack's rates", () => {
  it("a burst of posts in one channel: every one delivered once, none beyond its retry budget", async () => {
    emulator = await startSlackEmulator({ rateLimits: { scale: 50 } });
    const { client } = pacedClients(emulator, 50);
    const ops = Array.from({ length: 30 }, (_, i) =>
      client.chat.postMessage({ channel: DEMO.ops, text: `ops ${i}` }),
    );
    const general = Array.from({ length: 3 }, (_, i) =>
      client.chat.postMessage({ channel: DEMO.general, text: `general ${i}` }),
    );
    await expect(Promise.all([...ops, ...general])).resolves.toHaveLength(33);
    const texts = emulator.workspace.history(DEMO.ops).map((m) => m.text);
    for (let i = 0; i < 30; i++) expect(texts.filter((t) => t === `ops ${i}`)).toHaveLength(1);
    const refused = emulator.callsTo("chat.postMessage").filter((c) => c.response?.error === "ratelimited");
    expect(refused.length).toBeLessThanOrEqual(5);
  });

  it("uses Slack's burst allowance: sends while Slack accepts, then paces after its first 429", async () => {
    // Slack tolerates six posts at once here; Hermes's own bucket holds two.
    emulator = await startSlackEmulator({ rateLimits: { scale: 1, burst: { "chat.postMessage": 6 } } });
    const { client } = pacedClients(emulator, 1);
    const posts = Array.from({ length: 8 }, (_, i) =>
      client.chat.postMessage({ channel: DEMO.ops, text: `incident ${i}` }),
    );
    await expect(Promise.all(posts)).resolves.toHaveLength(8);
    // Six went without waiting for Hermes's pace; the seventh was refused once, waited out its
    // Retry-After, and from then on the channel was paced: no second 429.
    expect(emulator.callsTo("chat.postMessage").map((c) => c.response?.error ?? "ok")).toEqual([
      ...Array<string>(6).fill("ok"),
      "ratelimited",
      "ok",
      "ok",
    ]);
    expect(emulator.workspace.history(DEMO.ops).map((m) => m.text)).toEqual(
      Array.from({ length: 8 }, (_, i) => `incident ${i}`),
    );
  });

  it("a 429 pauses its own channel only: another channel's post goes while it waits", async () => {
    emulator = await startSlackEmulator({ rateLimits: true });
    const { client } = pacedClients(emulator, 1);
    emulator.faults.rateLimit("chat.postMessage", { times: 1, retryAfterSeconds: 2, channel: DEMO.ops });
    let opsDone = false;
    const ops = client.chat.postMessage({ channel: DEMO.ops, text: "busy" }).then((r) => {
      opsDone = true;
      return r;
    });
    // Wait until Slack has refused it, then post elsewhere.
    while (emulator.callsTo("chat.postMessage").length === 0) await new Promise((r) => setImmediate(r));
    await expect(client.chat.postMessage({ channel: DEMO.general, text: "quiet" })).resolves.toMatchObject({
      ok: true,
    });
    expect(opsDone).toBe(false); // still waiting out its Retry-After
    await expect(ops).resolves.toMatchObject({ ok: true });
    expect(
      emulator.callsTo("chat.postMessage").map((c) => [c.args.channel, c.response?.error ?? "ok"]),
    ).toEqual([
      [DEMO.ops, "ratelimited"],
      [DEMO.general, "ok"],
      [DEMO.ops, "ok"],
    ]);
  });

  it("uploads go through the paced files.* methods", async () => {
    emulator = await startSlackEmulator({ rateLimits: true });
    const { client, scheduler } = pacedClients(emulator, 1);
    const keys: string[] = [];
    const schedule = scheduler.schedule.bind(scheduler);
    scheduler.schedule = (call) => {
      keys.push(call.key);
      return schedule(call);
    };
    await client.filesUploadV2({
      channel_id: DEMO.ops,
      filename: "report.md",
      file: Buffer.from("# report"),
    } as never);
    expect(emulator.calls.map((c) => c.method)).toEqual([
      "files.getUploadURLExternal",
      "files.completeUploadExternal",
    ]);
    expect(keys).toEqual(["files.getUploadURLExternal", "files.completeUploadExternal"]);
  });

  it("progress updates of one message replace each other while they wait, and closing cancels them", async () => {
    emulator = await startSlackEmulator();
    // A budget that refills about once a minute×100: after its burst, progress waits.
    const { client, progress } = pacedClients(emulator, 0.01);
    const posted = await client.chat.postMessage({ channel: DEMO.ops, text: "working" });
    const ts = posted.ts!;
    const update = (text: string) => progress.chat.update({ channel: DEMO.ops, ts, text });
    // Five tokens, one kept back for calls that must go: four updates are sent at once.
    await Promise.all(["1", "2", "3", "4"].map(update));
    const queued = update("5").catch((err: unknown) => err);
    const newer = update("6").catch((err: unknown) => err);
    expect(await queued).toMatchObject({ reason: "superseded" });
    expect(client.expectedWaitMs("chat.update", { channel: DEMO.ops })).toBe(0); // the kept-back token
    progress.cancelProgress("chat.update", { channel: DEMO.ops, ts });
    expect(await newer).toMatchObject({ reason: "cancelled" });
    // The answer, a call that must go, takes the token progress left.
    await expect(client.chat.update({ channel: DEMO.ops, ts, text: "answer" })).resolves.toMatchObject({
      ok: true,
    });
    expect(emulator.callsTo("chat.update").map((c) => c.args.text)).toEqual(["1", "2", "3", "4", "answer"]);
    expect(emulator.workspace.getMessage(DEMO.ops, ts)?.text).toBe("answer");
  });
});
