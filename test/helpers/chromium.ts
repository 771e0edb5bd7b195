import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type Browser, chromium } from "playwright-core";
import { startProcess } from "./child-process.ts";

/** Debian's Chromium, headless, with nothing that would reach for the network. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Starts Chromium ourselves (its own process group, a fresh profile folder) and connects over CDP:
 * Playwright's own launch refuses `--user-data-dir` and leaves its profile behind if the test worker
 * dies. Waits for the DevTools line, not a fixed time. `close()` disconnects, kills the group and
 * removes the profile; if start-up fails, the same happens before this throws.
 */
export async function launchChromium(): Promise<Browser> {
  const folder = mkdtempSync(join(tmpdir(), "hermes-chromium-"));
  const profile = join(folder, "profile");
  // Chromium also writes to $TMPDIR (its singleton socket, left behind when it is killed): keep that
  // inside the folder we remove.
  const temp = join(folder, "tmp");
  mkdirSync(temp);
  const proc = startProcess(
    "/usr/bin/chromium",
    [...CHROMIUM_ARGS, `--user-data-dir=${profile}`, "--remote-debugging-port=0", "about:blank"],
    { env: { ...process.env, TMPDIR: temp }, removeOnStop: [folder] },
  );
  try {
    const [, endpoint] = await proc.waitForOutput(
      /DevTools listening on (ws:\/\/\S+)/,
      "Chromium's DevTools endpoint",
    );
    // The endpoint is listening already: a minute only bounds a hang (and keeps the whole launch,
    // DevTools line included, under PROCESS_TEST_TIMEOUT_MS).
    const browser = await chromium.connectOverCDP(endpoint as string, { timeout: 60_000 });
    const disconnect = browser.close.bind(browser);
    // Over CDP, close() only disconnects: the process (and its profile) is ours to end. Ask Chromium
    // to quit first (it tidies up), then stop() ends whatever is left of its group.
    browser.close = async (options) => {
      await browser
        .newBrowserCDPSession()
        .then((cdp) => cdp.send("Browser.close"))
        .catch(() => undefined);
      await disconnect(options).catch(() => undefined);
      await Promise.race([proc.exited, sleep(5_000)]);
      await proc.stop();
    };
    return browser;
  } catch (err) {
    await proc.stop();
    throw err;
  }
}
