import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { agentSessionsOf } from "../../src/sandbox/agent-sessions.ts";
import { useSandboxInBrowser } from "../helpers/sandbox-in-browser.ts";
import { answer } from "../helpers/scripted-model.ts";

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
  const sandbox = useSandboxInBrowser({ name: "agent-tab" });
  const { model } = sandbox;

  it("shows the prompts; a prompt starts a processing session; Stop stops it and closes the session", async () => {
    // The model is slow to answer: the session stays processing until Stop aborts the call.
    model.enqueue({
      ...(answer("Here is this week's report.") as { completion: Record<string, unknown> }),
      delayMs: 30_000,
    });
    const page: Page = await sandbox.browser().newPage({
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
    await page.goto(`http://127.0.0.1:${sandbox.hermes().port}/?as=U0USER1#D0USER1`);
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
    const ws = sandbox.hermes().sandbox!.workspace;
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
