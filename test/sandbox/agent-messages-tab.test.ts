import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningHermes, startHermes } from "../../src/boot/start-hermes.ts";
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { agentSessionsOf } from "../../src/sandbox/agent-sessions.ts";
import { launchChromium } from "../helpers/chromium.ts";
import { TEST_AUDIT_KEY } from "../helpers/hermes-harness.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/pg.ts";
import { answer, ScriptedModelServer } from "../helpers/scripted-model.ts";

const ARTIFACTS = "test-artifacts";
// Only bounds a hang on a busy machine: each state shows up in well under a second idle.
const UI_WAIT_MS = 60_000;
const visible = (l: Locator) => l.waitFor({ state: "visible", timeout: UI_WAIT_MS });

/**
 * The sandbox as `npm start` runs it (in process: emulator, page, Bolt receiver and worker), with the
 * scripted model, driven in Chromium: the agent's Messages tab (the agent view, Hermes's default)
 * offers prompts, a prompt starts a session, and Stop on the processing session stops the run.
 */
describe("the sandbox page's agent Messages tab", () => {
  const model = new ScriptedModelServer();
  let db: TestDatabase | undefined;
  let dataDir: string | undefined;
  let hermes: RunningHermes | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    await model.start();
    db = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), "hermes-agent-tab-"));
    const env = {
      PORT: "0",
      DATABASE_URL: db.url,
      HERMES_AUDIT_KEY: TEST_AUDIT_KEY,
      HERMES_DATA_DIR: dataDir,
      HERMES_LOG_LEVEL: "silent",
      HERMES_ADMINS: "U0ADMIN",
      OPENAI_BASE_URL: model.baseURL,
      HERMES_MODEL: "scripted",
      OPENAI_API_KEY: "k",
      HERMES_MODEL_MAX_RETRIES: "0",
    };
    hermes = await startHermes({ config: loadConfig(env), logger: silentLogger(), rawEnv: env });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    const steps = [
      () => browser?.close(),
      () => hermes?.stop(),
      () => model.stop(),
      () => db?.drop(),
      async () => {
        if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      },
    ];
    const results = await Promise.allSettled(steps.map((s) => Promise.resolve().then(s)));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
  });

  it("shows the prompts; a prompt starts a processing session; Stop stops it and closes the session", async () => {
    // The model is slow to answer: the session stays processing until Stop aborts the call.
    model.enqueue({
      ...(answer("Here is this week's report.") as { completion: Record<string, unknown> }),
      delayMs: 30_000,
    });
    const page: Page = await browser!.newPage({
      viewport: { width: 1280, height: 800 },
      reducedMotion: "reduce",
    });
    try {
      await walkThrough(page);
    } finally {
      await page.close();
    }
  });

  async function walkThrough(page: Page) {
    page.setDefaultTimeout(UI_WAIT_MS);
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`http://127.0.0.1:${hermes!.port}/?as=U0USER1#D0USER1`);
    await visible(page.getByRole("heading", { name: "Hermes", level: 1 }));
    const messagesTab = page.getByRole("tab", { name: "Messages" });
    await visible(messagesTab);
    expect(await messagesTab.getAttribute("aria-selected")).toBe("true");

    const panel = page.getByRole("region", { name: "Agent sessions" });
    const prompts = panel.getByRole("group", { name: "Try asking" });
    await visible(prompts.getByRole("button", { name: "Report of this week's tickets" }));
    await page.screenshot({ path: `${ARTIFACTS}/agent-messages-tab.png` });

    await prompts.getByRole("button", { name: "Report of this week's tickets" }).click();
    const session = panel
      .locator(".agent-session")
      .filter({ hasText: "Give me a report of this week's tickets." });
    await visible(session.getByText("Working…"));
    const stop = session.getByRole("button", { name: /^Stop/ });
    await visible(stop);
    await page.screenshot({ path: `${ARTIFACTS}/agent-session-stop.png` });

    await stop.click();
    await visible(session.getByText("Stopped"));
    expect(await session.getByRole("button", { name: /^Stop/ }).count()).toBe(0);
    const ws = hermes!.sandbox!.workspace;
    const [stopped] = agentSessionsOf(ws).all();
    expect(stopped).toMatchObject({ status: "closed", user: "U0USER1" });
    // The session's thread holds Hermes's answer: the request was cancelled.
    await session.getByRole("button", { name: "Give me a report of this week's tickets." }).click();
    await visible(page.locator(".message").filter({ hasText: "cancelled before it finished" }).first());
    expect(model.requests).toHaveLength(1);
    await page.screenshot({ path: `${ARTIFACTS}/agent-session-stopped.png` });
    expect(errors).toEqual([]);
  }
});
