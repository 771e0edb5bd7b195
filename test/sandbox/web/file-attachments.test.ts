import { mkdirSync } from "node:fs";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleFileBytes } from "../../../src/sandbox/sample-files.ts";
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

type FileEvent = { type?: string; text?: string; files?: Array<{ name: string; mimetype: string }> };

describe("attaching files in the sandbox page", () => {
  it("attaches with the button, by dropping, pasting and from the sample menu, removes some, and shows them posted as Slack does", async () => {
    const page: Page = await browser.newPage({
      viewport: { width: 1280, height: 800 },
      reducedMotion: "reduce",
    });
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(e.message));
    await page.goto(`${harness.origin}/?as=U0USER1#C0OPS`);
    await visible(page.getByRole("heading", { name: "#ops", level: 1 }));
    const main = page.getByRole("main");
    const pending = main.getByRole("list", { name: "Files to send" });

    // The paperclip's file input.
    await main.locator('input[type="file"]').setInputFiles({
      name: "screenshot.png",
      mimeType: "image/png",
      buffer: sampleFileBytes("sample-screenshot.png")!,
    });
    await visible(pending.getByText("screenshot.png"));

    // A DataTransfer made in the page, as a drag from the desktop brings one.
    const dropped = await page.evaluateHandle(`(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File(["ticket,status\\nT-1,open\\n"], "tickets.csv", { type: "text/csv" }));
      return transfer;
    })()`);
    await main.locator(".composer-box").dispatchEvent("drop", { dataTransfer: dropped });
    await visible(pending.getByText("tickets.csv"));

    // One click on a sample file; a second one removed again.
    const samples = main.getByRole("button", { name: "Sample files" });
    await samples.click();
    await main.getByRole("menuitem", { name: /sample-report\.pdf/ }).click();
    await visible(pending.getByText("sample-report.pdf"));
    await samples.click();
    await main.getByRole("menuitem", { name: /sample-tickets\.csv/ }).click();
    await visible(pending.getByText("sample-tickets.csv"));
    await main.getByRole("button", { name: "Remove sample-tickets.csv" }).click();
    await hidden(pending.getByText("sample-tickets.csv"));
    // A pasted screenshot has no name: it comes as image.png (removed again too).
    await page.evaluate(`(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10])], "", { type: "image/png" }));
      const paste = new ClipboardEvent("paste", { clipboardData: transfer, bubbles: true, cancelable: true });
      document.querySelector("main textarea").dispatchEvent(paste);
    })()`);
    await visible(pending.getByText("image.png"));
    await main.getByRole("button", { name: "Remove image.png" }).click();
    await hidden(pending.getByText("image.png"));
    expect(await pending.getByRole("listitem").count()).toBe(3);
    await page.screenshot({ path: `${ARTIFACTS}/sandbox-file-attachments-pending.png` });

    const composer = page.getByRole("combobox", { name: "Message #ops" });
    await composer.click();
    await composer.pressSequentially("@her");
    await visible(page.getByRole("option", { name: /Hermes/ }));
    await composer.press("Enter");
    await composer.pressSequentially("what do these say?");
    await composer.press("Enter");
    await hidden(pending);

    // Posted as Slack shows them: the image inline, the others as cards with type and size.
    const image = main.getByRole("img", { name: "screenshot.png" });
    await visible(image);
    await eventually(async () =>
      (await image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth > 0))
        ? true
        : undefined,
    );
    const csvCard = main.getByRole("link", { name: /tickets\.csv.*CSV/ });
    await visible(csvCard);
    await visible(main.getByRole("link", { name: /sample-report\.pdf.*PDF/ }));
    expect(await csvCard.getAttribute("href")).toMatch(
      /^\/sandbox\/files\/F\w+\/tickets\.csv\?as=U0USER1&download=1$/,
    );
    await page.screenshot({ path: `${ARTIFACTS}/sandbox-file-attachments.png` });

    // The bot got one app_mention carrying the three files.
    const mention = await eventually(() =>
      harness.bot.received
        .map((b) => b.event as FileEvent | undefined)
        .find((e) => e?.type === "app_mention" && e.text?.includes("what do these say?")),
    );
    expect(mention.files?.map((f) => [f.name, f.mimetype])).toEqual([
      ["screenshot.png", "image/png"],
      ["tickets.csv", "text/csv"],
      ["sample-report.pdf", "application/pdf"],
    ]);
    expect(problems).toEqual([]);
    await page.close();
  });
});
