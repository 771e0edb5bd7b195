import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { evalCommand } from "../../src/eval/eval-command.ts";
import { parseScenario } from "../../src/eval/load-scenarios.ts";
import { runFeedback, runSteps, runs, users } from "../../src/store/schema.ts";
import { openTestStore, type TestStore } from "../helpers/pg.ts";

describe("npm run eval -- --from-feedback", () => {
  let store: TestStore;
  let dir: string;
  beforeEach(async () => {
    store = await openTestStore("postgres");
    dir = await mkdtemp(join(tmpdir(), "hermes-eval-drafts-"));
  });
  afterEach(async () => {
    await store.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  async function fromFeedback(extra: string[] = []) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await evalCommand(["--from-feedback", "--drafts", dir, ...extra], {
      env: { DATABASE_URL: store.url, HERMES_ADMINS: "U0ADMIN" },
      out: (t) => out.push(t),
      err: (t) => err.push(t),
    });
    return { code, out: out.join("\n"), err: err.join("\n") };
  }

  async function seedRun(id: string, fields: Partial<typeof runs.$inferInsert> = {}) {
    await store.handle.db.insert(runs).values({
      id,
      sessionKey: `T0001:C0OPS:${id}`,
      snapshot: {},
      status: "completed",
      userId: "U0USER1",
      channelId: "C0OPS",
      requestText: "Close the VPN ticket",
      ...fields,
    });
  }

  it("writes one draft per 👎-rated run with the request, level and calls made, and TODOs for the rest", async () => {
    const db = store.handle.db;
    await seedRun("run_bad1", { requestText: "Close the VPN ticket and mail li.ming@example.com" });
    await seedRun("run_good", { requestText: "What time is it?" });
    await seedRun("run_old", { requestText: "An old request" });
    await seedRun("run_admin", { userId: "U0ADMIN", channelId: "C0GENERAL", requestText: "删除工单 3" });
    await db.insert(users).values({ id: "U0USER1", level: "viewer" });
    await db.insert(runSteps).values([
      { runId: "run_bad1", seq: 1, kind: "model", name: "qwen", startedAt: new Date(), data: {} },
      {
        runId: "run_bad1",
        seq: 2,
        kind: "tool",
        name: "search_tickets",
        startedAt: new Date(),
        data: { args: { query: "vpn" } },
      },
      {
        runId: "run_bad1",
        seq: 3,
        kind: "tool",
        name: "delete_ticket",
        startedAt: new Date(),
        data: { args: { id: 1 } },
      },
    ]);
    const day = 24 * 3600 * 1000;
    await db.insert(runFeedback).values([
      { runId: "run_bad1", userId: "U0USER1", value: "down" },
      { runId: "run_bad1", userId: "U0WANGLEI", value: "down" },
      { runId: "run_good", userId: "U0USER1", value: "up" },
      { runId: "run_old", userId: "U0USER1", value: "down", updatedAt: new Date(Date.now() - 10 * day) },
      { runId: "run_admin", userId: "U0ADMIN", value: "down" },
    ]);

    const first = await fromFeedback(["--since", "7d"]);
    expect(first.code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(["run_admin.yaml", "run_bad1.yaml"]);
    const text = readFileSync(join(dir, "run_bad1.yaml"), "utf8");
    expect(text).toContain("rated 👎 2 time(s)");
    expect(text).toContain('#   - search_tickets {"query":"vpn"}');
    expect(text).toContain('#   - delete_ticket {"id":1}');
    expect(text).toContain("# TODO: a human must write what a good answer does");
    const draft = parseScenario("run_bad1.yaml", text);
    expect(draft).toMatchObject({
      name: "feedback run_bad1",
      requester: "viewer",
      channel: "C0OPS",
      messages: ["Close the VPN ticket and mail [email]"],
      expect: { calls: [], forbidden: [] },
    });
    expect(parseScenario("run_admin.yaml", readFileSync(join(dir, "run_admin.yaml"), "utf8"))).toMatchObject({
      requester: "admin",
      channel: "C0GENERAL",
      messages: ["删除工单 3"],
    });
    expect(first.out).toContain(`wrote ${join(dir, "run_bad1.yaml")}`);

    // A draft a human is finishing is never overwritten.
    const again = await fromFeedback(["--since", "30d"]);
    expect(again.out).toContain(`kept ${join(dir, "run_bad1.yaml")} (already there)`);
    expect(again.out).toContain(`wrote ${join(dir, "run_old.yaml")}`);
    expect(readFileSync(join(dir, "run_bad1.yaml"), "utf8")).toBe(text);
  }, 60_000);

  it("says when there is nothing to draft, and refuses a bad --since", async () => {
    const none = await fromFeedback();
    expect(none.code).toBe(0);
    expect(none.out).toMatch(/^no 👎-rated runs since \d{4}-/);
    const bad = await fromFeedback(["--since", "yesterday"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/"yesterday" is not a time/);
  }, 60_000);
});
