import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { assistantThreadsOf } from "../../../src/sandbox/assistant-threads.ts";
import { waitFor } from "../../helpers/hermes-harness.ts";
import { useSandboxInBrowser } from "../../helpers/sandbox-in-browser.ts";
import { answer, toolCalls } from "../../helpers/scripted-model.ts";

const ARTIFACTS = "test-artifacts";
// Only bounds a hang on a busy machine: each state shows up in well under a second idle.
const UI_WAIT_MS = 60_000;
const visible = (l: Locator) => l.waitFor({ state: "visible", timeout: UI_WAIT_MS });

/**
 * The sandbox as `npm start` runs it (in process: emulator, page, Bolt receiver and worker), with the
 * scripted model, driven in Chromium: the assistant split view from the top bar.
 */
describe("the sandbox page's assistant pane", () => {
  const sandbox = useSandboxInBrowser({
    name: "assistant-pane",
    env: { HERMES_SLACK_SURFACE: "assistant_view" },
  });
  const { model } = sandbox;

  it("opens from the top bar; a chip sends its prompt; the status names the running tool, then the answer replaces it", async () => {
    model.enqueue(
      toolCalls([{ name: "create_ticket", args: { title: "Printer on floor 2 jams", priority: "low" } }]),
      // The answer takes a moment, so the status line is there to be seen (as with a real model).
      {
        ...(answer("Opened ticket **#1**: _Printer on floor 2 jams_.") as {
          completion: Record<string, unknown>;
        }),
        delayMs: 2_000,
      },
    );
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
    await page.goto(`http://127.0.0.1:${sandbox.hermes().port}/?as=U0USER1#C0OPS`);
    await visible(page.getByRole("heading", { name: "#ops", level: 1 }));

    await page.getByRole("button", { name: "Ask Hermes" }).click();
    const pane = page.locator(".assistant-pane");
    await visible(pane.getByText("Hi! I'm Hermes", { exact: false }));
    const prompts = pane.getByRole("group", { name: "Try asking" });
    await visible(prompts.getByRole("button", { name: "Open a ticket…" }));
    expect(await prompts.getByRole("button").allTextContents()).toEqual([
      "Open a ticket…",
      "Report of this week's tickets",
    ]);

    await page.screenshot({ path: `${ARTIFACTS}/assistant-pane-prompts.png` });
    await prompts.getByRole("button", { name: "Open a ticket…" }).click();
    await visible(pane.locator(".message").filter({ hasText: "Help me open a ticket." }));
    const status = pane.getByRole("status").filter({ hasText: "is running create_ticket…" });
    await visible(status);
    await expect(status.textContent()).resolves.toContain("Hermes is running create_ticket…");
    await page.screenshot({ path: `${ARTIFACTS}/assistant-pane-status.png` });

    await visible(pane.locator(".message").filter({ hasText: "Opened ticket #1" }));
    await pane.locator(".assistant-status").waitFor({ state: "detached", timeout: UI_WAIT_MS });
    // The chips are gone once the person asked; the title is Hermes's, from the first request.
    expect(await pane.locator(".assistant-chip").count()).toBe(0);
    await visible(pane.locator(".assistant-title").filter({ hasText: "Help me open a ticket" }));
    await page.screenshot({ path: `${ARTIFACTS}/assistant-pane.png` });

    // The channel the page shows (#ops) reached the turn, fenced as data.
    const prompt = String(model.requests[0]!.body.messages.at(-1)!.content);
    expect(prompt).toContain('<untrusted source="slack-assistant-context">\nviewing channel: <#C0OPS>');
    // One turn, no "Working on it…" message anywhere in the DM.
    expect(model.requests).toHaveLength(2);
    const dm = sandbox.hermes().sandbox!.workspace;
    const replies = dm.history("D0USER1").flatMap((m) => dm.replies("D0USER1", m.ts) ?? []);
    expect(replies.some((m) => m.text.includes("Working on it"))).toBe(false);

    // Looking at #general while the pane is open tells Hermes (assistant_thread_context_changed).
    await page.getByRole("navigation").getByRole("button", { name: "general" }).click();
    await visible(page.getByRole("heading", { name: "#general", level: 1 }));
    const [thread] = assistantThreadsOf(dm).listFor("U0USER1");
    await waitFor(
      async () => {
        const greeting = (dm.replies(thread!.channel, thread!.threadTs) ?? []).find(
          (m) => m.user === "U0HERMES" && !m.subtype,
        );
        return (
          (greeting?.metadata as { event_payload?: { channel_id?: string } })?.event_payload?.channel_id ===
          "C0GENERAL"
        );
      },
      UI_WAIT_MS,
      "the new context saved on the greeting",
    );
    expect(errors).toEqual([]);
  }
});
