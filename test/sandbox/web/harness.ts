import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createEventsSender } from "../../../src/sandbox/events-sender.ts";
import { seedDemoWorkspace } from "../../../src/sandbox/seed-demo-workspace.ts";
import { SlackApiEmulator } from "../../../src/sandbox/slack-api-server.ts";
import { type AuditFeed, createSandboxWeb, type SandboxWeb } from "../../../src/sandbox/web/sandbox-web.ts";
import type { Workspace } from "../../../src/sandbox/workspace.ts";
import { startTestBot, type TestBot } from "./test-bot.ts";

export const SIGNING_SECRET = "sandbox-web-secret";

export interface Harness {
  origin: string;
  workspace: Workspace;
  emulator: SlackApiEmulator;
  web: SandboxWeb;
  bot: TestBot;
  stop(): Promise<void>;
}

/**
 * One HTTP server with the page and the Slack emulator mounted side by side (as `npm start` does),
 * and a stand-in bot on its own port receiving the signed deliveries.
 */
export async function startHarness(
  options: { auditFeed?: () => Promise<AuditFeed>; modelInfo?: string } = {},
): Promise<Harness> {
  const workspace = seedDemoWorkspace();
  let web: SandboxWeb | undefined;
  let emulator: SlackApiEmulator | undefined;
  const server: Server = createServer((req, res) => {
    void (async () => {
      if (await web?.handle(req, res)) return;
      if (await emulator?.handle(req, res)) return;
      res.writeHead(404).end("not found");
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  emulator = new SlackApiEmulator({ workspace, publicOrigin: origin });
  const bot = await startTestBot({ apiUrl: emulator.url, signingSecret: SIGNING_SECRET });
  const sender = createEventsSender({ url: bot.url, signingSecret: SIGNING_SECRET, slack: emulator });
  web = createSandboxWeb({
    workspace,
    sender,
    admins: ["U0ADMIN"],
    modelInfo: options.modelInfo ?? "Model: scripted-test-model (OpenAI-compatible)",
    ...(options.auditFeed ? { auditFeed: options.auditFeed } : {}),
  });
  const started = { web, emulator };
  return {
    origin,
    workspace,
    ...started,
    bot,
    async stop() {
      started.web.close();
      await bot.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A few audit rows shaped like store/audit-chain.ts's AuditRow. */
export function fakeAuditFeed(): () => Promise<AuditFeed> {
  const rows = [
    {
      id: 3,
      createdAt: "2026-01-05T09:30:02.000000Z",
      action: "tool.executed",
      tool: "create_ticket",
      userId: "U0USER1",
      actorId: null,
      durationMs: 41,
      resultSummary: "ticket T-42 created",
      error: null,
    },
    {
      id: 2,
      createdAt: "2026-01-05T09:30:01.000000Z",
      action: "tool.approved",
      tool: "create_ticket",
      userId: "U0USER1",
      actorId: "U0ADMIN",
      durationMs: null,
      resultSummary: null,
      error: null,
    },
    {
      id: 1,
      createdAt: "2026-01-05T09:30:00.000000Z",
      action: "tool.approval_requested",
      tool: "create_ticket",
      userId: "U0USER1",
      actorId: null,
      durationMs: null,
      resultSummary: null,
      error: null,
    },
  ];
  return async () => ({ rows, verify: { ok: true, rows: rows.length } });
}

/** Polls until `find` returns something (or fails after `timeoutMs`, which only bounds a hang). */
export async function eventually<T>(
  find: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 30_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}
