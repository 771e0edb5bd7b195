import { mkdirSync } from "node:fs";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROCESS_TEST_TIMEOUT_MS } from "../../helpers/child-process.ts";
import { launchChromium } from "../../helpers/chromium.ts";
import { eventually, fakeAuditFeed, type Harness, startHarness } from "./harness.ts";
import { HOSTILE_TEXT, seedRichMessages } from "./seed-content.ts";

const ARTIFACTS = "test-artifacts/sandbox-web";

let harness: Harness;
let browser: Browser;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  harness = await startHarness({ auditFeed: fakeAuditFeed() });
  await seedRichMessages(harness);
  browser = await launchChromium();
}, PROCESS_TEST_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await harness?.stop();
});

async function openPage(as: string, channel: string, viewport = { width: 1280, height: 800 }): Promise<Page> {
  // Reduced motion: no sidebar slide caught halfway in a screenshot.
  const page = await browser.newPage({ viewport, reducedMotion: "reduce" });
  const problems: string[] = [];
  page.on("pageerror", (err) => problems.push(err.message));
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(m.text());
  });
  (page as Page & { problems: string[] }).problems = problems;
  await page.goto(`${harness.origin}/?as=${as}#${channel}`);
  await visible(page.getByRole("heading", { level: 1 }));
  return page;
}

/**
 * playwright-core has no `expect`: wait for what the page should show. Idle it takes milliseconds;
 * the 30 s ceiling only bounds a hang on a busy machine.
 */
async function visible(locator: Locator): Promise<void> {
  await locator.waitFor({ state: "visible", timeout: 30_000 });
}

async function hidden(locator: Locator): Promise<void> {
  await locator.waitFor({ state: "hidden", timeout: 30_000 });
}

async function until(check: () => Promise<boolean>): Promise<void> {
  await eventually(async () => ((await check()) ? true : undefined));
}

function problemsOf(page: Page): string[] {
  return (page as Page & { problems: string[] }).problems;
}

describe("the sandbox page in Chromium", () => {
  it("mentions the bot from the composer, shows the live reply in the thread, confirms a click, hides others' ephemerals, shows the audit log", async () => {
    const page = await openPage("U0USER1", "C0OPS");
    await visible(page.getByRole("heading", { name: "#ops", level: 1 }));

    // Mention autocomplete: "@her" suggests the bot; choosing it shows @hermes, sends <@U0HERMES>.
    const composer = page.getByRole("combobox", { name: "Message #ops" });
    await composer.click();
    await composer.pressSequentially("@her");
    const option = page.getByRole("option", { name: /Hermes/ });
    await visible(option);
    await page.screenshot({ path: `${ARTIFACTS}/1280-mention.png` });
    await composer.press("Enter");
    await until(async () => (await composer.inputValue()) === "@hermes ");
    await composer.pressSequentially("hello");
    await composer.press("Enter");
    await until(async () => (await composer.inputValue()) === "");

    const mention = await eventually(() =>
      harness.bot.received.find((b) => (b.event as { type?: string } | undefined)?.type === "app_mention"),
    );
    expect(mention.event).toMatchObject({ text: "<@U0HERMES> hello", user: "U0USER1", channel: "C0OPS" });
    expect(harness.bot.refused).toBe(0);

    // The reply arrives over SSE: the thread summary appears, and the thread opens in the side pane.
    const main = page.getByRole("main");
    await main.getByRole("button", { name: /1 reply/ }).click();
    const thread = page.getByRole("complementary", { name: /Thread/ });
    await visible(thread.getByText("I can run"));
    await visible(thread.getByText("Only visible to you"));
    await until(
      async () =>
        (await thread.getByRole("link", { name: "the docs" }).getAttribute("href")) ===
        "https://example.com/docs",
    );
    const approve = thread.getByRole("button", { name: "Approve" });
    await until(async () => /btn-primary/.test((await approve.getAttribute("class")) ?? ""));
    await until(async () =>
      /btn-danger/.test((await thread.getByRole("button", { name: "Reject" }).getAttribute("class")) ?? ""),
    );
    await page.screenshot({ path: `${ARTIFACTS}/1280-thread.png` });

    // Confirm dialog first; cancel sends nothing, confirming sends the click and the card updates.
    await approve.click();
    const dialog = page.getByRole("dialog", { name: "Run create_ticket?" });
    await visible(dialog);
    await visible(dialog.getByText("This creates a ticket as"));
    await page.screenshot({ path: `${ARTIFACTS}/1280-confirm.png` });
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await hidden(dialog);
    expect(harness.bot.received.some((b) => b.type === "block_actions")).toBe(false);
    await approve.click();
    await dialog.getByRole("button", { name: "Run it" }).click();
    await visible(thread.getByText("Approved"));
    await until(async () => (await thread.getByRole("button", { name: "Approve" }).count()) === 0);
    const click = harness.bot.received.find((b) => b.type === "block_actions");
    expect(click).toMatchObject({ user: { id: "U0USER1" }, actions: [{ action_id: "demo.approve" }] });

    // A /hermes command: suggestions, then the answer comes back as an ephemeral.
    await composer.click();
    await composer.pressSequentially("/hermes w");
    await visible(page.getByRole("option", { name: /\/hermes whoami/ }));
    await page.screenshot({ path: `${ARTIFACTS}/1280-commands.png` });
    await composer.press("Enter");
    await until(async () => (await composer.inputValue()) === "/hermes whoami ");
    await composer.press("Enter");
    await visible(main.getByText("You ran /hermes whoami"));
    await until(async () => (await main.locator(".message.ephemeral").count()) === 1);

    // Wang Lei sees the thread but none of Li Ming's ephemerals.
    await page.getByRole("combobox", { name: "You are" }).selectOption("U0WANGLEI");
    await visible(page.getByRole("heading", { name: "#ops", level: 1 }));
    await visible(main.getByRole("button", { name: /1 reply/ }));
    await until(async () => (await main.getByText("You ran").count()) === 0);
    await main.getByRole("button", { name: /1 reply/ }).click();
    await visible(thread.getByText("Approved"));
    await until(async () => (await page.getByText("Psst").count()) === 0);
    await until(async () => (await page.getByRole("button", { name: "Audit log" }).count()) === 0);

    // The admin gets the audit panel with the feed's rows and its verify line.
    await page.getByRole("combobox", { name: "You are" }).selectOption("U0ADMIN");
    const audit = page.getByRole("complementary", { name: "Audit log" });
    await visible(audit.getByText("Hash chain verified (3 rows)"));
    await until(async () => (await audit.getByRole("listitem").count()) === 3);
    await visible(audit.getByText("ticket T-42 created"));
    await page.screenshot({ path: `${ARTIFACTS}/1280-admin-audit.png` });
    expect(problemsOf(page)).toEqual([]);
    await page.close();
  });

  it("renders Block Kit, files and echoed markup as text; opens App Home", async () => {
    const page = await openPage("U0ADMIN", "C0GENERAL");
    const main = page.getByRole("main");
    await visible(main.getByRole("heading", { name: "Weekly ticket report" }));
    await visible(main.getByText(`Echoed title: ${HOSTILE_TEXT}`));
    await visible(main.getByText("Tom & Jerry <ops>"));
    await until(async () =>
      ((await main.locator("pre").textContent()) ?? "").includes('run create_ticket title="VPN down"'),
    );
    await until(async () => (await main.locator("blockquote").textContent()) === "VPN down on 3F");
    await visible(main.getByText("@li.ming"));
    const chart = main.getByRole("img", { name: "Tickets opened per day" });
    await visible(chart);
    expect(
      await chart.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
    ).toBeGreaterThan(100);
    const csv = main.getByRole("link", { name: /tickets\.csv/ });
    const download = await page.request.get(`${harness.origin}${await csv.getAttribute("href")}`);
    expect(await download.text()).toContain("day,count");
    expect(await page.evaluate("window.__pwned")).toBeUndefined();
    await page.screenshot({ path: `${ARTIFACTS}/1280-general.png` });

    await page
      .getByRole("navigation")
      .getByRole("button", { name: /Hermes/ })
      .click();
    await page.getByRole("tab", { name: "Home" }).click();
    await visible(page.getByRole("tabpanel").getByText("Hermes home"));
    await visible(page.getByRole("tabpanel").getByText("approvals wait"));
    await page.screenshot({ path: `${ARTIFACTS}/1280-app-home.png` });
    expect(problemsOf(page)).toEqual([]);
    await page.close();
  });

  it("opens on the DM with Hermes, with a hint to type help; a link naming a conversation opens that one", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, reducedMotion: "reduce" });
    const problems: string[] = [];
    page.on("pageerror", (err) => problems.push(err.message));
    await page.goto(`${harness.origin}/?as=U0USER1`);
    await visible(page.getByRole("heading", { name: "Hermes", level: 1 }));
    const composer = page.getByRole("combobox", { name: "Message Hermes" });
    await visible(composer);
    expect(await composer.getAttribute("placeholder")).toBe(
      "Message Hermes · type help to see what Hermes can do",
    );
    await until(async () => new URL(page.url()).hash === "#D0USER1");
    await visible(page.getByRole("main").getByText("Type help to see what Hermes can do."));
    await page.screenshot({ path: `${ARTIFACTS}/1280-opens-on-dm.png` });

    // A channel keeps its plain placeholder; the link it leaves opens it again.
    await page.getByRole("navigation").getByRole("button", { name: "general" }).click();
    await visible(page.getByRole("heading", { name: "#general", level: 1 }));
    expect(await page.getByRole("combobox", { name: "Message #general" }).getAttribute("placeholder")).toBe(
      "Message #general",
    );
    await until(async () => new URL(page.url()).hash === "#C0GENERAL");
    await page.reload();
    await visible(page.getByRole("heading", { name: "#general", level: 1 }));
    expect(problems).toEqual([]);
    await page.close();
    // A link naming another conversation, opened afresh.
    const linked = await openPage("U0USER1", "C0OPS");
    await visible(linked.getByRole("heading", { name: "#ops", level: 1 }));
    expect(problemsOf(linked)).toEqual([]);
    await linked.close();
  });

  it("stays usable at 390×844: the sidebar collapses into a menu", async () => {
    const page = await openPage("U0USER1", "C0GENERAL", { width: 390, height: 844 });
    const nav = page.getByRole("navigation", { name: "Channels and direct messages" });
    await hidden(nav);
    const menu = page.getByRole("button", { name: "Channels and direct messages" });
    await until(async () => (await menu.getAttribute("aria-expanded")) === "false");
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    await page.screenshot({ path: `${ARTIFACTS}/390-channel.png` });

    await menu.click();
    await visible(nav);
    await until(async () => (await menu.getAttribute("aria-expanded")) === "true");
    await page.screenshot({ path: `${ARTIFACTS}/390-menu.png` });
    await nav.getByRole("button", { name: "ops" }).click();
    await hidden(nav);
    await visible(page.getByRole("heading", { name: "#ops", level: 1 }));
    await visible(page.getByRole("combobox", { name: "Message #ops" }));

    await page.getByRole("main").getByRole("button", { name: /repl/ }).first().click();
    const thread = page.getByRole("complementary", { name: /Thread/ });
    await visible(thread);
    await page.screenshot({ path: `${ARTIFACTS}/390-thread.png` });
    await thread.getByRole("button", { name: "Close thread" }).click();
    await hidden(thread);
    expect(problemsOf(page)).toEqual([]);
    await page.close();
  });
});
