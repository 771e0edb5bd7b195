import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resolveCallArgs } from "../../../src/agent/run/resolve-call-args.ts";
import { DEMO } from "../../../src/sandbox/seed-demo-workspace.ts";
import type { SlackApiEmulator } from "../../../src/sandbox/slack-api-server.ts";
import { createWebSlackPort } from "../../../src/slack/web-slack-port.ts";
import { resolveReference } from "../../../src/tools/references/resolve-reference.ts";
import { sendMessage } from "../../../src/tools/send-message.ts";
import { waitFor } from "../../helpers/hermes-harness.ts";
import { sandboxWebClient, startSlackEmulator } from "../../helpers/slack.ts";

/**
 * A slow Slack: a proxy in front of the emulator that holds requests to the methods in `holding`
 * while `hold` is set, until `releaseOne()` or `release()` — a big workspace's pages at tier-2
 * pacing, made to wait on demand.
 */
class HoldingProxy {
  hold = false;
  holding = new Set(["users.list"]);
  readonly held: Array<() => void> = [];
  readonly received: string[] = [];
  private server: Server | undefined;
  url = "";
  private readonly target: string;

  constructor(target: string) {
    this.target = target;
  }

  async start(): Promise<this> {
    const origin = new URL(this.target).origin;
    this.server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const method = (req.url ?? "").split("?")[0]!.split("/").pop() ?? "";
      this.received.push(method);
      if (this.hold && this.holding.has(method)) await new Promise<void>((r) => this.held.push(r));
      try {
        const upstream = await fetch(`${origin}${req.url}`, {
          method: req.method ?? "POST",
          headers: {
            "content-type": String(req.headers["content-type"] ?? "application/x-www-form-urlencoded"),
            authorization: String(req.headers.authorization ?? ""),
          },
          ...(req.method === "GET" ? {} : { body: Buffer.concat(chunks) }),
        });
        res.writeHead(upstream.status, {
          "content-type": upstream.headers.get("content-type") ?? "application/json",
        });
        res.end(Buffer.from(await upstream.arrayBuffer()));
      } catch {
        res.destroy();
      }
    });
    await new Promise<void>((r) => this.server!.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api/`;
    return this;
  }

  /** Lets the oldest held request through; later ones are still held. */
  releaseOne(): void {
    this.held.shift()?.();
  }

  release(): void {
    this.hold = false;
    for (const go of this.held.splice(0)) go();
  }

  calls(method: string): number {
    return this.received.filter((m) => m === method).length;
  }

  async stop(): Promise<void> {
    this.release();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

let emulator: SlackApiEmulator;
let proxy: HoldingProxy;
const ports: Array<{ directory: { stop(): void } }> = [];

/** 230 people after the demo's four: the last ones, and `late.comer`, are on users.list's second page. */
beforeAll(async () => {
  emulator = await startSlackEmulator();
  for (let i = 0; i < 230; i++)
    emulator.workspace.addUser({ id: `U0FILL${i}`, name: `fill.${i}`, realName: `Filler ${i}` });
  emulator.workspace.addUser({ id: "U0LATE", name: "late.comer", realName: "Late Comer" });
});
afterAll(() => emulator.stop());

beforeEach(async () => {
  await proxy?.stop();
  proxy = await new HoldingProxy(emulator.url).start();
  emulator.faults.clear();
});
afterEach(() => {
  for (const port of ports.splice(0)) port.directory.stop();
});
afterAll(() => proxy?.stop());

function slackPort(options: { retryMs?: number } = {}) {
  const client = sandboxWebClient(emulator, { slackApiUrl: proxy.url });
  const port = createWebSlackPort(client, { directory: { retryMs: options.retryMs ?? 20 } });
  ports.push(port);
  return port;
}

const tooLong = (written: string, loaded: string) =>
  `Looking up "${written}" in Slack took too long: its member list (${loaded} people so far) is still loading, so nothing was done. Try again in a minute, or give the id (U… for a person, C… for a channel).`;

describe("the directory loads page by page behind the look-ups", () => {
  it("a name on a loaded page is answered at once; one on a later page waits for it; never 'not found' while loading", async () => {
    const dir = slackPort();
    proxy.hold = true;
    const first = resolveReference(dir, "@li.ming", "user");
    await waitFor(() => proxy.held.length === 1, 10_000, "the first page, held");
    proxy.releaseOne();
    expect(await first).toEqual({ type: "user", id: DEMO.user });
    // The second page is asked for at once, and held: what is loaded answers meanwhile.
    await waitFor(() => proxy.held.length === 1, 10_000, "the second page, held");
    expect(await resolveReference(dir, "Wang Lei", "user")).toEqual({ type: "user", id: DEMO.wangLei });
    expect(dir.loadedUsers()).toMatchObject({ complete: false });
    expect(dir.loadedUsers().items).toHaveLength(200);

    // Not loaded yet: a bounded wait says the list is still loading, and how far it is.
    await expect(
      resolveReference(dir, "@late.comer", "user", { signal: AbortSignal.timeout(100) }),
    ).rejects.toThrow(tooLong("@late.comer", "200"));
    // Without a bound, a name waits for its page; a name in no page is "not found" only at the end.
    const late = resolveReference(dir, "@late.comer", "user");
    const nobody = resolveReference(dir, "@no.such.person", "user").catch((err: Error) => err.message);
    proxy.releaseOne();
    expect(await late).toEqual({ type: "user", id: "U0LATE" });
    expect(await nobody).toMatch(/^No one named @no\.such\.person is in this workspace\./);
    expect(proxy.calls("users.list")).toBe(2);

    // Complete: look-ups and misses list nothing again.
    for (const name of ["@fill.3", "Filler 229", "@late.comer", "@nobody.at.all"])
      await resolveReference(dir, name, "user").catch(() => undefined);
    expect(proxy.calls("users.list")).toBe(2);
  });

  it("a failed page keeps what is loaded, says so for a name not yet found, and is asked again", async () => {
    const dir = slackPort({ retryMs: 20 });
    proxy.hold = true;
    expect(dir.loadedUsers().items).toHaveLength(0); // starts loading
    await waitFor(() => proxy.held.length === 1, 10_000, "the first page, held");
    proxy.releaseOne();
    await waitFor(() => proxy.held.length === 1, 10_000, "the second page, held");
    emulator.faults.fail("users.list", "internal_error");
    proxy.releaseOne();
    await waitFor(() => dir.loadedUsers().failure === "internal_error", 10_000, "the failed page");
    await expect(resolveReference(dir, "@late.comer", "user")).rejects.toThrow(
      `Could not look up "@late.comer" in Slack yet: its member list (200 people so far) is still loading; Slack's last answer: internal_error, so nothing was done.`,
    );
    // What is loaded still answers, and ids need no list at all.
    expect(await resolveReference(dir, "@li.ming", "user")).toEqual({ type: "user", id: DEMO.user });
    expect(await resolveReference(dir, "U0LATE", "user")).toEqual({ type: "user", id: "U0LATE" });
    // The page is asked again (held here), from its cursor, then the list is complete.
    await waitFor(() => proxy.held.length === 1, 10_000, "the retried page, held");
    proxy.release();
    await waitFor(() => dir.loadedUsers().complete, 10_000, "the complete list");
    expect(await resolveReference(dir, "@late.comer", "user")).toEqual({ type: "user", id: "U0LATE" });
    expect(proxy.calls("users.list")).toBe(3);
  });

  it("a look-up stops when the run is cancelled, and after its timeout with a sentence true to what it waited for", async () => {
    const dir = slackPort();
    proxy.hold = true; // the very first page
    const cancel = new AbortController();
    const looking = resolveReference(dir, "@li.ming", "user", { signal: cancel.signal });
    await waitFor(() => proxy.held.length === 1, 10_000, "the held first page");
    const reason = new Error("run cancelled");
    cancel.abort(reason);
    await expect(looking).rejects.toBe(reason);

    // Through the agent's path: the send_message call's names time out; the run's signal is live.
    const run = { runId: "run_t", sessionKey: "s", userId: DEMO.user };
    const timedOut = await resolveCallArgs(sendMessage(dir), { to: "@li.ming", text: "hi" }, run, {
      signal: new AbortController().signal,
      timeoutMs: 200,
    });
    expect(timedOut).toEqual({ ok: false, error: tooLong("@li.ming", "0") });
    // A recipient may be a person, a channel or a group: the sentence names what is loading.
    const either = await resolveCallArgs(sendMessage(dir), { to: "Li Ming", text: "hi" }, run, {
      signal: new AbortController().signal,
      timeoutMs: 200,
    });
    expect(either).toMatchObject({ ok: false });
    // The channel and group lists are not held: whether they are in yet, the member list is not.
    expect((either as { error: string }).error).toMatch(
      /^Looking up "Li Ming" in Slack took too long: its member list \(0 people so far\)(, | and | is still loading)/,
    );
    // Cancelled run: its own sentence, not a timeout.
    const stopped = new AbortController();
    const pending = resolveCallArgs(sendMessage(dir), { to: "@li.ming", text: "hi" }, run, {
      signal: stopped.signal,
    });
    stopped.abort(new Error("cancelled"));
    expect(await pending).toEqual({
      ok: false,
      error: "The run was stopped while the names in the arguments were looked up.",
    });

    // Once Slack answers, the shared loading goes on and look-ups resolve.
    proxy.release();
    expect(await resolveReference(dir, "@li.ming", "user")).toEqual({ type: "user", id: DEMO.user });
  });

  it("an id check that runs out of time says so, not that a list is loading", async () => {
    const dir = slackPort();
    proxy.holding = new Set(["users.info"]);
    proxy.hold = true;
    const run = { runId: "run_id", sessionKey: "s", userId: DEMO.user };
    const timedOut = await resolveCallArgs(sendMessage(dir), { to: DEMO.wangLei, text: "hi" }, run, {
      signal: new AbortController().signal,
      timeoutMs: 200,
    });
    expect(timedOut).toEqual({
      ok: false,
      error: `Checking "${DEMO.wangLei}" with Slack took too long (Slack is slow to answer just now), so nothing was done. Try again in a minute.`,
    });
    proxy.release();
  });
});
