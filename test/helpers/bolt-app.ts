import type { AddressInfo } from "node:net";
import { App } from "@slack/bolt";
import { z } from "zod";
import type { AgentRuntime } from "../../src/agent/run/agent-runtime.ts";
import type { HermesParts } from "../../src/boot/hermes-parts.ts";
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { createApprovalStore } from "../../src/policy/approval-store.ts";
import { createRedactor } from "../../src/policy/redact.ts";
import { createEventsSender, type EventsSender } from "../../src/sandbox/events-sender.ts";
import { DEMO } from "../../src/sandbox/seed-demo-workspace.ts";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import type { SandboxMessage } from "../../src/sandbox/workspace-types.ts";
import { createScheduleStore, type ScheduleStore } from "../../src/schedules/schedule-store.ts";
import type { SlackOutput } from "../../src/slack/slack-output.ts";
import { createWebSlackPort } from "../../src/slack/web-slack-port.ts";
import type { Storage } from "../../src/storage.ts";
import { createAuditLog } from "../../src/store/audit.ts";
import { createRunQuery } from "../../src/store/run-query.ts";
import { createUserStore } from "../../src/store/user-store.ts";
import { defineTool, type Tool } from "../../src/tools/define-tool.ts";
import { ToolRegistry } from "../../src/tools/registry.ts";
import { createMemoryResultStore } from "../../src/tools/result-store.ts";
import { openTestStore, type TestStore } from "./pg.ts";
import { quietSlackLogger, sandboxWebClient, startSlackEmulator } from "./slack.ts";

export const SIGNING_SECRET = "bolt-harness-signing-secret";

export type HarnessServices = Pick<HermesParts, "config" | "logger"> & {
  storage: Pick<Storage, "audit" | "approvals" | "users" | "runQuery">;
  runtime: Pick<AgentRuntime, "registry" | "guards">;
  slack: Pick<SlackOutput, "client" | "slack" | "redactor">;
};

export interface BoltHarness {
  emulator: SlackApiEmulator;
  app: App;
  sender: EventsSender;
  services: HarnessServices;
  schedules: ScheduleStore;
  store: TestStore;
  stop(): Promise<void>;
}

/** Four tools shaped like the built-ins: a viewer read, a user write, and two that need approval. */
export function harnessTools(): Tool[] {
  const noop = () => "ok";
  return [
    defineTool({
      name: "search_tickets",
      description: "Search tickets by text and status.",
      level: "viewer",
      input: z.object({ query: z.string().optional() }),
      execute: noop,
    }),
    defineTool({
      name: "create_ticket",
      description: "Open a ticket.\nSecond line is not shown.",
      input: z.object({ title: z.string() }),
      execute: noop,
    }),
    defineTool({
      name: "send_message",
      description: "Send a Slack message <as Hermes> & wait for approval.",
      input: z.object({ to: z.string(), text: z.string() }),
      approval: "always",
      execute: noop,
    }),
    defineTool({
      name: "delete_ticket",
      description: "Delete a ticket for good.",
      level: "admin",
      input: z.object({ id: z.number() }),
      approval: "always",
      dangerous: true,
      execute: noop,
    }),
  ];
}

/**
 * The real thing end to end: the Slack API emulator (seeded demo workspace, DEMO.admin in
 * HERMES_ADMINS), a fresh Postgres database with the real stores, and a real Bolt `App` on a free
 * port whose handlers `register` adds. Requests reach it signed, through the events sender.
 */
export async function startBoltHarness(
  register: (app: App, services: HarnessServices, schedules: ScheduleStore) => void,
  options: { tools?: Tool[] } = {},
): Promise<BoltHarness> {
  const emulator = await startSlackEmulator();
  const store = await openTestStore("postgres");
  const { db } = store.handle;
  const audit = createAuditLog({ db });
  const registry = new ToolRegistry({ results: createMemoryResultStore(), logger: silentLogger() });
  registry.register(...(options.tools ?? harnessTools()));
  const services: HarnessServices = {
    config: loadConfig({ HERMES_ADMINS: DEMO.admin }),
    logger: silentLogger(),
    storage: {
      audit,
      approvals: createApprovalStore({ db, audit, ttlSeconds: 900 }),
      users: createUserStore({ db }),
      runQuery: createRunQuery({ db }),
    },
    runtime: { registry, guards: {} },
    slack: {
      client: sandboxWebClient(emulator),
      slack: createWebSlackPort(sandboxWebClient(emulator)),
      redactor: createRedactor(),
    },
  };
  const schedules = createScheduleStore({ db });
  const app = new App({
    token: "xoxb-test",
    signingSecret: SIGNING_SECRET,
    clientOptions: { slackApiUrl: emulator.url, retryConfig: { retries: 0 } },
    logger: quietSlackLogger(),
  });
  register(app, services, schedules);
  const server = await app.start(0);
  const { port } = server.address() as AddressInfo;
  const sender = createEventsSender({
    url: `http://127.0.0.1:${port}/slack/events`,
    signingSecret: SIGNING_SECRET,
    slack: emulator,
  });
  return {
    emulator,
    app,
    sender,
    services,
    schedules,
    store,
    async stop() {
      await app.stop();
      await emulator.stop();
      await store.cleanup();
    },
  };
}

/** Polls until `find` returns something (handlers answer after the ack); the ceiling only bounds a hang. */
export async function eventually<T>(find: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The `n`-th ephemeral message `user` sees in `channel` (1-based), once it arrives. */
export function nthEphemeral(
  emulator: SlackApiEmulator,
  channel: string,
  user: string,
  n: number,
): Promise<SandboxMessage> {
  return eventually(() => emulator.workspace.ephemeralMessages(channel, user)[n - 1]);
}

/** Web API calls Slack would have refused (`ok: false`), as `method: error` lines. */
export function failedCalls(emulator: SlackApiEmulator): string[] {
  return emulator.calls
    .filter((c) => c.response?.ok !== true)
    .map(
      (c) =>
        `${c.method}: ${String(c.response?.error)} ${JSON.stringify(c.response?.response_metadata ?? "")}`,
    );
}

export interface BlockLike {
  type: string;
  block_id?: string;
  text?: { type: string; text: string };
  elements?: Array<{ type: string; action_id?: string; value?: string; text?: unknown; style?: string }>;
}

/** All visible mrkdwn/plain text of a message's blocks, joined. */
export function blocksText(blocks: unknown[] | undefined): string {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        if (k === "text" && typeof x === "string") out.push(x);
        else walk(x);
      }
    }
  };
  walk(blocks);
  return out.join("\n");
}

/** The buttons of a message's actions blocks. */
export function buttonsOf(blocks: unknown[] | undefined): Array<{ action_id?: string; value?: string }> {
  return ((blocks ?? []) as BlockLike[])
    .filter((b) => b.type === "actions")
    .flatMap((b) => b.elements ?? [])
    .filter((e) => e.type === "button");
}
