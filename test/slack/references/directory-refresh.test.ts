import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resolveCallArgs } from "../../../src/agent/run/resolve-call-args.ts";
import { DEMO } from "../../../src/sandbox/seed-demo-workspace.ts";
import type { SlackApiEmulator } from "../../../src/sandbox/slack-api-server.ts";
import { createWorkspaceDirectory } from "../../../src/slack/references/workspace-directory.ts";
import { createWebSlackPort } from "../../../src/slack/web-slack-port.ts";
import { resolveReference } from "../../../src/tools/references/resolve-reference.ts";
import { sendMessage } from "../../../src/tools/send-message.ts";
import type { SlackPort } from "../../../src/tools/slack-port.ts";
import { waitFor } from "../../helpers/hermes-harness.ts";
import { sandboxWebClient, startSlackEmulator } from "../../helpers/slack.ts";

/**
 * A slow Slack: a proxy in front of the emulator that holds `users.list` requests while `hold` is
 * set, until `release()` — a big workspace's pages at tier-2 pacing, made to wait on demand.
 */
class HoldingProxy {
  hold = false;
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
      if (this.hold && method === "users.list") await new Promise<void>((r) => this.held.push(r));
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
let now = 1_000_000;

beforeAll(async () => {
  emulator = await startSlackEmulator();
});
afterAll(() => emulator.stop());

beforeEach(async () => {
  await proxy?.stop();
  proxy = await new HoldingProxy(emulator.url).start();
  emulator.faults.clear();
});
afterAll(() => proxy?.stop());

function directory() {
  const client = sandboxWebClient(emulator, { slackApiUrl: proxy.url });
  const { userById, channelById } = createWebSlackPort(client);
  return { ...createWorkspaceDirectory(client, { ttlMs: 60_000, now: () => now }), userById, channelById };
}

describe("the directory refreshes behind the look-ups (stale-while-revalidate)", () => {
  it("a refresh in progress does not block look-ups; a miss waits for that one refresh", async () => {
    const dir = directory();
    expect(await resolveReference(dir, "@li.ming", "user")).toEqual({ type: "user", id: DEMO.user });
    expect(proxy.calls("users.list")).toBe(1);

    // A minute later, with Slack slow to answer: look-ups are served from the list they have.
    now += 61_000;
    emulator.workspace.addUser({ id: "U0NEWBIE", name: "new.bie", realName: "New Bie" });
    proxy.hold = true;
    const burst = await Promise.all(
      ["@li.ming", "Wang Lei", "zhang.wei", "Li Ming"].map((r) => resolveReference(dir, r, "user")),
    );
    expect(burst.map((r) => r.id)).toEqual([DEMO.user, DEMO.wangLei, DEMO.admin, DEMO.user]);
    // One refresh for the whole burst, still held.
    await waitFor(() => proxy.held.length === 1, 10_000, "the held refresh");
    expect(proxy.calls("users.list")).toBe(2);

    // The new person is not in the stale list: the miss waits for the refresh in flight (no
    // second one) and finds them once it lands.
    const newcomer = resolveReference(dir, "@new.bie", "user");
    await waitFor(() => proxy.held.length === 1, 10_000, "still one held refresh");
    proxy.release();
    expect(await newcomer).toEqual({ type: "user", id: "U0NEWBIE" });
    expect(proxy.calls("users.list")).toBe(2);

    // A miss on a list within its time fetches nothing.
    await expect(resolveReference(dir, "@no.such.person", "user")).rejects.toThrow(/No one named/);
    expect(proxy.calls("users.list")).toBe(2);
  });

  it("a failed refresh keeps the old list; the next stale read tries again", async () => {
    const dir = directory();
    const first = await dir.listUsers();
    now += 61_000;
    emulator.faults.fail("users.list", "internal_error");
    // Served at once, then (fresh) after the refresh failed: the same list either way.
    expect(await dir.listUsers()).toBe(first);
    expect(await dir.listUsers({ fresh: true })).toBe(first);
    expect(emulator.callsTo("users.list").some((c) => c.response?.error === "internal_error")).toBe(true);
    expect(await resolveReference(dir, "Wang Lei", "user")).toEqual({ type: "user", id: DEMO.wangLei });
    // Slack answers again: the next stale read refreshes.
    const refreshed = await dir.listUsers({ fresh: true });
    expect(refreshed).not.toBe(first);
    expect(refreshed.some((u) => u.id === DEMO.user)).toBe(true);
  });

  it("a look-up stops when the run is cancelled, and after its timeout with a sentence", async () => {
    const dir = directory();
    proxy.hold = true; // the very first fetch: the only one a look-up waits for
    const cancel = new AbortController();
    const looking = resolveReference(dir, "@li.ming", "user", { signal: cancel.signal });
    await waitFor(() => proxy.held.length === 1, 10_000, "the held first fetch");
    const reason = new Error("run cancelled");
    cancel.abort(reason);
    await expect(looking).rejects.toBe(reason);

    // Through the agent's path: the send_message call's names time out; the run's signal is live.
    const slack = { ...dir } as unknown as SlackPort;
    const run = { runId: "run_t", sessionKey: "s", userId: DEMO.user };
    const timedOut = await resolveCallArgs(sendMessage(slack), { to: "@li.ming", text: "hi" }, run, {
      signal: new AbortController().signal,
      timeoutMs: 200,
    });
    expect(timedOut).toEqual({
      ok: false,
      error:
        'Looking up "@li.ming" in Slack took too long (its member and channel lists are still loading), so nothing was done. Try again in a minute, or give the id (U… for a person, C… for a channel).',
    });
    // Cancelled run: its own sentence, not a timeout.
    const stopped = new AbortController();
    const pending = resolveCallArgs(sendMessage(slack), { to: "@li.ming", text: "hi" }, run, {
      signal: stopped.signal,
    });
    stopped.abort(new Error("cancelled"));
    expect(await pending).toEqual({
      ok: false,
      error: "The run was stopped while the names in the arguments were looked up.",
    });

    // Once Slack answers, the shared fetch lands and look-ups resolve.
    proxy.release();
    expect(await resolveReference(dir, "@li.ming", "user")).toEqual({ type: "user", id: DEMO.user });
  });
});
