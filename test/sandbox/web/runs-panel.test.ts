import { mkdirSync } from "node:fs";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROCESS_TEST_TIMEOUT_MS } from "../../helpers/child-process.ts";
import { launchChromium } from "../../helpers/chromium.ts";
import { startTestHermes, type TestHermes, waitFor } from "../../helpers/hermes-harness.ts";
import { execSql } from "../../helpers/pg.ts";
import { answer, ScriptedModelServer, toolCalls } from "../../helpers/scripted-model.ts";

const ARTIFACTS = "test-artifacts";
// A DOM state shows up in well under a second idle; this only bounds a hang on a busy machine.
const UI_WAIT_MS = 60_000;
const visible = (l: Locator) => l.waitFor({ state: "visible", timeout: UI_WAIT_MS });

/**
 * Hermes in sandbox mode, in process (its own emulator and page), on a fresh Postgres database with
 * the scripted model: a member asks, approves a send_message, rates the answer and opens its run.
 */
describe("the Runs panel and feedback buttons in the sandbox page (Chromium)", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  let browser: Browser;
  let origin = "";
  let runId = "";
  const sql = <T extends Record<string, unknown>>(text: string) =>
    execSql<T>(t.hermes.services.storage.db.db, text);
  const api = async (path: string) => {
    const res = await fetch(`${origin}${path}`);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  /** The sandbox page as Li Ming, in #ops, with the page's script errors collected. */
  async function openOps(): Promise<{ page: Page; errors: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, reducedMotion: "reduce" });
    page.setDefaultTimeout(UI_WAIT_MS);
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${origin}/?as=U0USER1#C0OPS`);
    await visible(page.getByRole("heading", { name: "#ops", level: 1 }));
    return { page, errors };
  }

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    await model.start();
    // No Slack token: the sandbox workspace, page and emulator, served by Hermes itself.
    t = await startTestHermes({
      model,
      env: { SLACK_BOT_TOKEN: "", SLACK_SIGNING_SECRET: "", SLACK_API_URL: "" },
    });
    origin = `http://127.0.0.1:${t.hermes.port}`;
    browser = await launchChromium();
  }, PROCESS_TEST_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
    await model.stop();
  });

  it(
    "a run with a tool call: 👍/👎 stored from the page, then its timeline in the Runs panel",
    async () => {
      model.enqueue(
        toolCalls([{ name: "send_message", args: { to: "<@U0WANGLEI>", text: "Li Ming joins at three" } }]),
        answer("Done — I told Wang Lei you'll join at three."),
      );
      const { page, errors } = await openOps();

      const composer = page.getByRole("combobox", { name: "Message #ops" });
      await composer.click();
      await composer.pressSequentially("@her");
      await visible(page.getByRole("option", { name: /Hermes/ }));
      await composer.press("Enter");
      await composer.pressSequentially("please tell Wang Lei I'll join at three");
      await composer.press("Enter");

      const main = page.getByRole("main");
      await visible(main.getByRole("button", { name: /repl/ }));
      await main.getByRole("button", { name: /repl/ }).click();
      const thread = page.getByRole("complementary", { name: /Thread/ });
      await thread.getByRole("button", { name: "Approve" }).click();
      await visible(thread.getByText("Done — I told Wang Lei you'll join at three."));

      // 👍 selects and sends; the row is stored for Li Ming.
      const up = thread.getByRole("button", { name: "This answer was helpful" });
      const down = thread.getByRole("button", { name: "This answer was not helpful" });
      await up.click();
      await waitFor(async () => (await up.getAttribute("aria-pressed")) === "true", UI_WAIT_MS, "👍 pressed");
      const stored = () =>
        sql<{ run_id: string; value: string }>(
          `select run_id, value from run_feedback where user_id = 'U0USER1'`,
        );
      const [row] = await waitFor(
        async () => {
          const rows = await stored();
          return rows.length === 1 && rows[0]!.value === "up" ? rows : undefined;
        },
        UI_WAIT_MS,
        "the 👍 row",
      );
      runId = row!.run_id;
      await page.screenshot({ path: `${ARTIFACTS}/feedback-buttons.png` });
      // 👎 switches it (one row); 👍 is no longer selected.
      await down.click();
      await waitFor(async () => (await stored())[0]?.value === "down", UI_WAIT_MS, "the 👎 row");
      expect(await stored()).toHaveLength(1);
      expect(await up.getAttribute("aria-pressed")).toBe("false");
      // 👎 again unselects it, as Slack's buttons do, and sends nothing (Slack has no "unselected"
      // event): no side pressed, the stored rating stays.
      await down.click();
      await waitFor(
        async () => (await down.getAttribute("aria-pressed")) === "false",
        UI_WAIT_MS,
        "unselected",
      );
      expect(await up.getAttribute("aria-pressed")).toBe("false");
      // 👎 once more selects it and is sent; the selection is kept when the thread is closed and opened again.
      await down.click();
      await waitFor(
        async () =>
          (await sql(`select 1 from audit_log where action = 'run.feedback' and run_id = '${runId}'`))
            .length === 3,
        UI_WAIT_MS,
        "the third click's audit row",
      );
      expect((await stored()).map((r) => r.value)).toEqual(["down"]);
      await thread.getByRole("button", { name: "Close thread" }).click();
      await main.getByRole("button", { name: /repl/ }).click();
      await waitFor(async () => (await down.getAttribute("aria-pressed")) === "true", UI_WAIT_MS, "👎 kept");
      expect(await up.getAttribute("aria-pressed")).toBe("false");
      const audited = await sql<{ args: { value: string; previous?: string } }>(
        `select args from audit_log where action = 'run.feedback' and run_id = '${runId}' order by id`,
      );
      // Three clicks sent, not four: the unselect never reached the app.
      expect(audited.map((r) => r.args)).toEqual([
        { value: "up" },
        { value: "down", previous: "up" },
        { value: "down" },
      ]);

      // The approval card links to its run too (its metadata names it), as the answer does.
      const panel = page.getByRole("complementary", { name: /Runs/ });
      const timeline = panel.getByRole("region", { name: `Run ${runId}` });
      const cardLink = thread.locator(".message-run").getByRole("button", { name: "View run" });
      await visible(cardLink);
      expect(await cardLink.count()).toBe(1);
      await cardLink.click();
      await visible(timeline);
      await main.getByRole("button", { name: /repl/ }).click();
      const { body: seen } = await api("/sandbox/api/state?as=U0USER1");
      const messages = (seen.state as { messages: Array<{ blocks?: unknown; metadata?: unknown }> }).messages;
      // The decided card (its buttons gone) is the one message whose blocks name the tool.
      const card = messages.find((m) => JSON.stringify(m.blocks ?? []).includes("send_message"));
      expect(card?.metadata).toEqual({ event_type: "hermes_run", event_payload: { run_id: runId } });

      // The answer links to its run: the Runs panel opens on its timeline.
      await thread.locator(".feedback-buttons").getByRole("button", { name: "View run" }).click();
      await visible(timeline);
      await visible(timeline.getByText("Done", { exact: false }).or(timeline.locator(".run-status")).first());
      const rows = timeline.locator(".timeline-row");
      await waitFor(async () => (await rows.count()) >= 3, UI_WAIT_MS, "the timeline rows");
      const kinds = await rows.evaluateAll((els) => els.map((e) => e.getAttribute("data-kind")));
      expect(kinds.filter((k) => k === "model").length).toBeGreaterThanOrEqual(2);
      expect(kinds).toContain("tool");
      // Every bar sits on the axis: a left offset and a width within the track.
      const bars = await timeline.locator(".timeline-bar").evaluateAll((els) =>
        els.map((e) => {
          const bar = e.getBoundingClientRect();
          const track = e.parentElement!.getBoundingClientRect();
          return { left: bar.left - track.left, width: bar.width, track: track.width };
        }),
      );
      for (const b of bars) {
        expect(b.width).toBeGreaterThan(0);
        expect(b.left).toBeGreaterThanOrEqual(0);
        expect(b.left + b.width).toBeLessThanOrEqual(b.track + 1);
      }
      const tool = rows.filter({ hasText: "send_message" }).first();
      await visible(tool.locator(".policy-chip", { hasText: "needs_approval" }));
      await visible(timeline.getByLabel("0 helpful, 1 not helpful"));
      // No HERMES_MODEL_PRICES here: the cost row says tokens only, naming the unpriced model.
      expect(await timeline.locator(".run-cost").textContent()).toBe("tokens only (no price for scripted)");
      await page.screenshot({ path: `${ARTIFACTS}/runs-timeline.png` });

      // Back to the list: the run with its request and feedback counts.
      await panel.getByRole("button", { name: "← All runs" }).click();
      const listed = panel.getByRole("button", { name: `Open run ${runId}` });
      await visible(listed);
      expect(await listed.textContent()).toContain("please tell Wang Lei");
      expect(await listed.textContent()).toContain("tokens only (no price for scripted)");
      await visible(listed.getByLabel("0 helpful, 1 not helpful"));

      // The admin's audit log links each row of the run to it.
      await page.getByRole("combobox", { name: "You are" }).selectOption("U0ADMIN");
      await panel.getByRole("button", { name: "Close runs" }).click();
      const audit = page.getByRole("complementary", { name: "Audit log" });
      await visible(audit);
      const feedbackRow = audit.locator(".audit-row").filter({ hasText: "run.feedback" }).first();
      await feedbackRow.getByRole("button", { name: `Open run ${runId}` }).click();
      await visible(panel.getByRole("region", { name: `Run ${runId}` }));
      await visible(panel.getByText("everyone's"));

      // The admin's list filters by requester: Wang Lei asked nothing, Li Ming's run is there.
      await panel.getByRole("button", { name: "← All runs" }).click();
      const requester = panel.getByRole("combobox", { name: "Requester" });
      await requester.selectOption("U0WANGLEI");
      await visible(panel.getByText("No runs yet."));
      await requester.selectOption("U0USER1");
      await visible(panel.getByRole("button", { name: `Open run ${runId}` }));
      await page.screenshot({ path: `${ARTIFACTS}/runs-list.png` });
      expect(errors).toEqual([]);
      await page.close();
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it("JSON routes: members see their own runs, admins every run; others' runs are 404", async () => {
    expect(runId, "the browser test ran first").not.toBe("");
    const mine = await api("/sandbox/api/runs?as=U0USER1");
    expect(mine.status).toBe(200);
    expect(mine.body.scope).toBe("own");
    expect((mine.body.runs as Array<{ runId: string }>).map((r) => r.runId)).toContain(runId);

    const other = await api("/sandbox/api/runs?as=U0WANGLEI");
    expect(other.body.scope).toBe("own");
    expect(other.body.runs).toEqual([]);
    expect((await api(`/sandbox/api/runs/${runId}?as=U0WANGLEI`)).status).toBe(404);
    const peek = await api("/sandbox/api/runs?as=U0WANGLEI&user=U0USER1");
    expect(peek.status).toBe(403);
    expect(peek.body.message).toMatch(/only your own runs/);

    const admin = await api("/sandbox/api/runs?as=U0ADMIN&user=U0USER1&status=completed&since=1h");
    expect(admin.body.scope).toBe("all");
    expect((admin.body.runs as Array<{ runId: string }>).map((r) => r.runId)).toEqual([runId]);
    expect((await api("/sandbox/api/runs?as=U0ADMIN&status=failed")).body.runs).toEqual([]);
    const detail = await api(`/sandbox/api/runs/${runId}?as=U0ADMIN`);
    expect(detail.status).toBe(200);
    const run = detail.body.run as { userId: string; feedback: unknown; timeline: unknown[] };
    expect(run.userId).toBe("U0USER1");
    expect(run.feedback).toEqual({ up: 0, down: 1 });
    expect(run.timeline.length).toBeGreaterThanOrEqual(3);

    // An admin promoted in the `users` table (not in HERMES_ADMINS) sees every run, as in /hermes runs;
    // demoted again, only their own.
    await sql(`insert into users (id, level) values ('U0WANGLEI', 'admin')`);
    const promoted = await api("/sandbox/api/runs?as=U0WANGLEI&user=U0USER1");
    expect(promoted.status).toBe(200);
    expect(promoted.body.scope).toBe("all");
    expect((promoted.body.runs as Array<{ runId: string }>).map((r) => r.runId)).toEqual([runId]);
    expect((await api(`/sandbox/api/runs/${runId}?as=U0WANGLEI`)).status).toBe(200);
    await sql(`update users set level = 'user' where id = 'U0WANGLEI'`);
    expect((await api("/sandbox/api/runs?as=U0WANGLEI")).body.scope).toBe("own");
    expect((await api(`/sandbox/api/runs/${runId}?as=U0WANGLEI`)).status).toBe(404);

    const bad = await api("/sandbox/api/runs?as=U0ADMIN&since=yesterday");
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/since: use 30m, 24h, 7d/);
    expect((await api("/sandbox/api/runs/run_nope?as=U0ADMIN")).status).toBe(404);
    expect((await api("/sandbox/api/runs?as=nobody")).status).toBe(400);
  });

  it(
    "a failure sentence and a stop sentence link to their runs, as answers do",
    async () => {
      const { page, errors } = await openOps();
      const main = page.getByRole("main");
      const thread = page.getByRole("complementary", { name: /Thread/ });
      const panel = page.getByRole("complementary", { name: /Runs/ });
      const threads = main.getByRole("button", { name: /repl/ });

      /** Asks Hermes in #ops and opens the newest thread once it has a reply. */
      async function ask(text: string) {
        const before = await threads.count();
        const composer = page.getByRole("combobox", { name: "Message #ops" });
        await composer.click();
        await composer.pressSequentially("@her");
        await visible(page.getByRole("option", { name: /Hermes/ }));
        await composer.press("Enter");
        await composer.pressSequentially(text);
        await composer.press("Enter");
        await waitFor(async () => (await threads.count()) > before, UI_WAIT_MS, "the reply");
        await threads.last().click();
      }
      const newestRun = async (status: string) =>
        (
          await sql<{ id: string }>(
            `select id from runs where user_id = 'U0USER1' and status = '${status}' order by created_at desc limit 1`,
          )
        )[0]?.id;

      // The model fails: the failure sentence (its reference id is the run id) links to that run.
      model.enqueue({ status: 500, body: { error: { message: "boom" } } });
      await ask("what broke last night?");
      // Typed right after the @ menu, the question arrives whole (its first key once landed last).
      await visible(thread.getByText("what broke last night?"));
      const failure = thread.locator("article", { hasText: "Reference: run" });
      await visible(failure);
      const failedId = await waitFor(() => newestRun("failed"), UI_WAIT_MS, "the failed run");
      expect(await failure.textContent()).toContain(failedId);
      expect(await failure.locator(".feedback-buttons").count()).toBe(0);
      await page.screenshot({ path: `${ARTIFACTS}/run-link-failure.png` });
      await failure.getByRole("button", { name: "View run" }).click();
      const failedTimeline = panel.getByRole("region", { name: `Run ${failedId}` });
      await visible(failedTimeline);
      expect(await failedTimeline.locator(".run-status").textContent()).toBe("failed");

      // The model's output is cut off twice: the stop sentence links to its (stopped) run.
      model.enqueue(answer("The incident began wh", "length"), answer("The incident", "length"));
      await ask("summarise the incident");
      const stop = thread.locator("article", { hasText: "cut off twice" });
      await visible(stop);
      const stoppedId = await waitFor(() => newestRun("stopped"), UI_WAIT_MS, "the stopped run");
      await visible(stop.getByRole("button", { name: "View run" }));
      await page.screenshot({ path: `${ARTIFACTS}/run-link-stop.png` });
      await stop.getByRole("button", { name: "View run" }).click();
      const stoppedTimeline = panel.getByRole("region", { name: `Run ${stoppedId}` });
      await visible(stoppedTimeline);
      expect(await stoppedTimeline.locator(".run-status").textContent()).toBe("stopped");
      expect(errors).toEqual([]);
      await page.close();
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
