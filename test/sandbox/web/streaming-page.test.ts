import { mkdirSync } from "node:fs";
import type { WebClient } from "@slack/web-api";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postAsUser } from "../../../src/sandbox/post-as-user.ts";
import { DEMO } from "../../../src/sandbox/seed-demo-workspace.ts";
import { PROCESS_TEST_TIMEOUT_MS } from "../../helpers/child-process.ts";
import { launchChromium } from "../../helpers/chromium.ts";
import { sandboxWebClient } from "../../helpers/slack.ts";
import { type Harness, startHarness } from "./harness.ts";

/**
 * A streamed answer on the sandbox page: the message appears when the stream starts, grows in place
 * with each append (text and task list), and once stopped and finalized shows what is stored.
 */
let harness: Harness;
let browser: Browser;
let client: WebClient;

beforeAll(async () => {
  mkdirSync("test-artifacts", { recursive: true });
  harness = await startHarness();
  client = sandboxWebClient(harness.emulator);
  browser = await launchChromium();
}, PROCESS_TEST_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await harness?.stop();
});

const wait = { timeout: 30_000 } as const;

describe("streamed messages on the sandbox page", () => {
  it("grow in place with their task list; the final state is the stored message", async () => {
    const question = postAsUser(harness.workspace, {
      user: DEMO.user,
      channel: DEMO.dmUser,
      text: "Which tickets are open?",
    });
    const page: Page = await browser.newPage({
      viewport: { width: 1280, height: 800 },
      reducedMotion: "reduce",
    });
    const problems: string[] = [];
    page.on("pageerror", (err) => problems.push(err.message));
    try {
      await page.goto(`${harness.origin}/?as=${DEMO.user}#${DEMO.dmUser}`);
      await page.getByRole("heading", { level: 1 }).waitFor({ state: "visible", ...wait });

      const { ts } = await client.chat.startStream({
        channel: DEMO.dmUser,
        thread_ts: question.ts,
        chunks: [{ type: "task_update", id: "call_1", title: "`search_tickets`", status: "in_progress" }],
      });
      await page.getByRole("button", { name: /1 reply/ }).click();
      const pane = page.locator(".thread-pane");
      const message = pane.locator(`article[id="m-${DEMO.dmUser}-${ts}"]`);
      await message.locator('.task[data-status="in_progress"]').waitFor({ state: "visible", ...wait });
      await message
        .getByRole("status")
        .filter({ hasText: "Writing…" })
        .waitFor({ state: "visible", ...wait });

      await client.chat.appendStream({
        channel: DEMO.dmUser,
        ts: ts!,
        chunks: [
          { type: "task_update", id: "call_1", title: "`search_tickets`", status: "complete" },
          { type: "markdown_text", text: "Three tickets are open: " },
        ],
      } as Parameters<WebClient["chat"]["appendStream"]>[0]);
      await message.locator('.task[data-status="complete"]').waitFor({ state: "visible", ...wait });
      await message.getByText("Three tickets are open:").waitFor({ state: "visible", ...wait });
      await client.chat.appendStream({
        channel: DEMO.dmUser,
        ts: ts!,
        markdown_text: "two about the VPN, one about printers",
      });
      // The same element grew: one message in the thread besides the question, with the new text.
      await message.getByText("two about the VPN").waitFor({ state: "visible", ...wait });
      expect(await pane.locator("article").count()).toBe(2);
      await page.screenshot({ path: "test-artifacts/streaming.png" });

      const final = "Three tickets are open: two about the VPN, one about printers.";
      await client.chat.stopStream({ channel: DEMO.dmUser, ts: ts! });
      await client.chat.update({
        channel: DEMO.dmUser,
        ts: ts!,
        text: final,
        blocks: [{ type: "section", text: { type: "mrkdwn", text: final } }],
      });
      await message.getByRole("status").waitFor({ state: "detached", ...wait });
      await message.getByText(final).waitFor({ state: "visible", ...wait });
      const stored = harness.workspace.getMessage(DEMO.dmUser, ts!)!;
      const shownTasks = await message
        .locator(".task")
        .evaluateAll((els) =>
          els.map((e) => ({ id: e.getAttribute("data-task-id"), status: e.getAttribute("data-status") })),
        );
      expect(shownTasks).toEqual(stored.stream!.tasks.map((t) => ({ id: t.id, status: t.status })));
      expect((await message.locator(".message-main").textContent()) ?? "").toContain(stored.text);
      await page.screenshot({ path: "test-artifacts/streaming-final.png" });
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
