import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromServer } from "../../../src/sandbox/web/public/store.js";
import { threadLinkState } from "../../../src/sandbox/web/public/thread-link.js";
import { PROCESS_TEST_TIMEOUT_MS } from "../../helpers/child-process.ts";
import { startTestHermes, type TestHermes, waitFor } from "../../helpers/hermes-harness.ts";
import { execSql } from "../../helpers/pg.ts";
import { answer, ScriptedModelServer, toolCalls } from "../../helpers/scripted-model.ts";

const WAIT_MS = 60_000;
const SANDBOX = { SLACK_BOT_TOKEN: "", SLACK_SIGNING_SECRET: "", SLACK_API_URL: "" };

interface Thread {
  channelId: string | null;
  threadTs: string | null;
}

/**
 * The thread links the page shows for a run and its audit rows, decided from what the page's routes
 * serve: they open the thread while its messages are in the workspace, also after a restart; after one whose
 * workspace folder was deleted (a fresh demo workspace, the runs and audit rows still in the
 * database), they say "thread no longer available" instead of opening nothing.
 */
describe("thread links of runs and audit rows in the sandbox page", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  const get = async <T>(path: string): Promise<T> => {
    const r = await fetch(`http://127.0.0.1:${t.hermes.port}${path}`);
    expect(r.status).toBe(200);
    return (await r.json()) as T;
  };
  /** What the page's ThreadLink shows, for a run's and its audit rows' threads, to `as`. */
  const links = async (runId: string, as: string) => {
    const { state } = await get<{ state: Record<string, unknown> }>(`/sandbox/api/state?as=${as}`);
    const pageWs = fromServer(state);
    const channelById = new Map((state.channels as Array<{ id: string }>).map((c) => [c.id, c]));
    const ws = { ...pageWs, channelById };
    const { run } = await get<{ run: Thread }>(`/sandbox/api/runs/${runId}?as=${as}`);
    const { rows } = await get<{ rows: Array<Thread & { runId: string | null }> }>(
      `/sandbox/api/audit?as=${as}`,
    );
    const rowsOfRun = rows.filter((r) => r.runId === runId);
    expect(rowsOfRun.length).toBeGreaterThan(0);
    return {
      run: threadLinkState(ws, run.channelId, run.threadTs),
      audit: [...new Set(rowsOfRun.map((r) => threadLinkState(ws, r.channelId, r.threadTs)))],
    };
  };

  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({ model, env: SANDBOX });
  }, PROCESS_TEST_TIMEOUT_MS);
  afterAll(async () => {
    await t?.stop();
    await model.stop();
  });

  it(
    "open while the thread exists; 'no longer available' once the workspace's folder is gone",
    async () => {
      model.enqueue(
        toolCalls([{ name: "create_ticket", args: { title: "Printer jammed on 3F" } }]),
        answer("Ticket created."),
      );
      const said = await fetch(`http://127.0.0.1:${t.hermes.port}/sandbox/api/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          as: "U0ADMIN",
          channel: "D0ADMIN",
          text: "the printer on 3F is jammed, open a ticket",
        }),
      });
      expect(said.status).toBe(200);
      const [run] = await waitFor(
        async () => {
          const rows = await execSql<{ id: string; status: string }>(
            t.hermes.services.storage.db.db,
            "select id, status from runs",
          );
          return rows[0]?.status === "completed" ? rows : undefined;
        },
        WAIT_MS,
        "the completed run",
      );
      const runId = run!.id;
      expect(await links(runId, "U0ADMIN")).toEqual({ run: "open", audit: ["open"] });

      // A restart keeps the workspace beside the database: the links still open the thread.
      await t.stopHermes();
      t = await startTestHermes({ model, reuse: t, env: SANDBOX });
      expect(await links(runId, "U0ADMIN")).toEqual({ run: "open", audit: ["open"] });

      await t.stopHermes();
      rmSync(join(t.hermes.services.config.env.HERMES_DATA_DIR, "sandbox"), { recursive: true, force: true });
      t = await startTestHermes({ model, reuse: t, env: SANDBOX });
      expect(await links(runId, "U0ADMIN")).toEqual({ run: "gone", audit: ["gone"] });
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
