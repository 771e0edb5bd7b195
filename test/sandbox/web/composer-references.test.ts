import { mkdirSync } from "node:fs";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROCESS_TEST_TIMEOUT_MS } from "../../helpers/child-process.ts";
import { launchChromium } from "../../helpers/chromium.ts";
import { eventually, type Harness, startHarness } from "./harness.ts";

const ARTIFACTS = "test-artifacts";

let harness: Harness;
let browser: Browser;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  harness = await startHarness();
  browser = await launchChromium();
}, PROCESS_TEST_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await harness?.stop();
});

/** playwright-core has no `expect`: wait for the DOM state (the ceiling only bounds a hang). */
const visible = (l: Locator) => l.waitFor({ state: "visible", timeout: 30_000 });
const hidden = (l: Locator) => l.waitFor({ state: "hidden", timeout: 30_000 });
const until = (check: () => Promise<boolean>) => eventually(async () => ((await check()) ? true : undefined));

type RichElement = { type: string; text?: string; user_id?: string; channel_id?: string };
type Mention = {
  text: string;
  blocks: Array<{ type: string; elements: Array<{ elements: RichElement[] }> }>;
};

describe("the composer turns # and @ into Slack references, as Slack's client does", () => {
  it("#gen → #general: the event carries <#C…|general> and a channel element, and the message links to the channel", async () => {
    const page: Page = await browser.newPage({
      viewport: { width: 1280, height: 800 },
      reducedMotion: "reduce",
    });
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(e.message));
    await page.goto(`${harness.origin}/?as=U0USER1#C0OPS`);
    await visible(page.getByRole("heading", { name: "#ops", level: 1 }));
    const composer = page.getByRole("combobox", { name: "Message #ops" });
    await composer.click();

    // @ finds a person by any word of their name; Tab picks, as Enter does.
    await composer.pressSequentially("@her");
    await visible(page.getByRole("option", { name: /Hermes/ }));
    await composer.press("Tab");
    await until(async () => (await composer.inputValue()) === "@hermes ");
    await composer.pressSequentially("tell @ming");
    const people = page.getByRole("listbox", { name: "People" });
    await visible(people);
    const liMing = people.getByRole("option", { name: /Li Ming/ });
    await visible(liMing);
    await liMing.dispatchEvent("mousedown"); // a mouse pick
    await until(async () => (await composer.inputValue()) === "@hermes tell @li.ming ");

    // # lists channels; arrows move, Escape closes, typing reopens it.
    await composer.pressSequentially("to post in #");
    const channels = page.getByRole("listbox", { name: "Channels" });
    await visible(channels);
    const options = channels.getByRole("option");
    expect(await options.allTextContents()).toEqual([
      expect.stringContaining("#general"),
      expect.stringContaining("#ops"),
    ]);
    await composer.press("ArrowDown");
    await until(async () => (await options.nth(1).getAttribute("aria-selected")) === "true");
    await composer.press("ArrowUp");
    await until(async () => (await options.nth(0).getAttribute("aria-selected")) === "true");
    await composer.press("Escape");
    await hidden(channels);
    await composer.pressSequentially("gen");
    await visible(channels);
    expect(await options.allTextContents()).toEqual([expect.stringContaining("#general")]);
    expect(await composer.getAttribute("aria-activedescendant")).toMatch(/-option-0$/);
    await page.screenshot({ path: `${ARTIFACTS}/composer-autocomplete.png` });
    await composer.press("Enter");
    await until(async () => (await composer.inputValue()) === "@hermes tell @li.ming to post in #general ");
    await composer.pressSequentially("today");
    await composer.press("Enter");
    await until(async () => (await composer.inputValue()) === "");

    const mention = await eventually(() =>
      harness.bot.received
        .map((b) => b.event as (Mention & { type?: string }) | undefined)
        .find((e) => e?.type === "app_mention" && e.text.includes("today")),
    );
    expect(mention.text).toBe("<@U0HERMES> tell <@U0USER1> to post in <#C0GENERAL|general> today");
    expect(mention.blocks[0]?.type).toBe("rich_text");
    expect(mention.blocks[0]?.elements[0]?.elements).toEqual([
      { type: "user", user_id: "U0HERMES" },
      { type: "text", text: " tell " },
      { type: "user", user_id: "U0USER1" },
      { type: "text", text: " to post in " },
      { type: "channel", channel_id: "C0GENERAL" },
      { type: "text", text: " today" },
    ]);

    // The sent message shows the references as Slack does; the channel one opens #general.
    const main = page.getByRole("main");
    const link = main.getByRole("link", { name: "#general" });
    await visible(link);
    expect(await link.getAttribute("href")).toBe("#C0GENERAL");
    await visible(main.getByText("@li.ming", { exact: true }));
    await link.click();
    await visible(page.getByRole("heading", { name: "#general", level: 1 }));
    expect(problems).toEqual([]);
    await page.close();
  });

  it("a /hermes command carries picked channels and people encoded, as Slack sends them with should_escape", async () => {
    const page: Page = await browser.newPage({
      viewport: { width: 1280, height: 800 },
      reducedMotion: "reduce",
    });
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(e.message));
    await page.goto(`${harness.origin}/?as=U0USER1#C0OPS`);
    await visible(page.getByRole("heading", { name: "#ops", level: 1 }));
    const composer = page.getByRole("combobox", { name: "Message #ops" });
    await composer.click();
    await composer.fill('/hermes schedule add "0 9 * * 1-5" #ops "a & b" for @li.ming');
    await composer.press("Escape");
    await composer.press("Enter");
    await until(async () => (await composer.inputValue()) === "");
    const command = await eventually(() =>
      harness.bot.received.find((b) => b.command === "/hermes" && String(b.text).startsWith("schedule")),
    );
    expect(command.text).toBe('schedule add "0 9 * * 1-5" <#C0OPS|ops> "a &amp; b" for <@U0USER1|li.ming>');
    expect(problems).toEqual([]);
    await page.close();
  });
});
