import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../../../src/sandbox/seed-demo-workspace.ts";
import { registerHermesCommand } from "../../../src/slack/commands/hermes-command.ts";
import { runNotFound } from "../../../src/slack/commands/runs-answer.ts";
import type { RunQuery } from "../../../src/store/run-query.ts";
import { runs } from "../../../src/store/schema.ts";
import { type BoltHarness, blocksText, eventually, startBoltHarness } from "../../helpers/bolt-app.ts";

/**
 * `/hermes run <id>` never tells a member whether someone else's run exists: "not yours" and "no such
 * run" are the same sentence, reached through the same query and the same audited refusal.
 */
let h: BoltHarness;
const reads: Array<{ runId: string; scope: unknown; found: boolean }> = [];

beforeAll(async () => {
  h = await startBoltHarness((app, services) => {
    // The real run query, watched: which reads each answer makes, and what they found.
    const runQuery: RunQuery = {
      list: (filter) => services.storage.runQuery.list(filter),
      async get(runId, scope) {
        const run = await services.storage.runQuery.get(runId, scope);
        reads.push({ runId, scope, found: run !== undefined });
        return run;
      },
    };
    registerHermesCommand(app, { ...services, storage: { ...services.storage, runQuery } });
  });
  const run = (id: string, userId: string) => ({
    id,
    sessionKey: `T0001:C0GENERAL:${id}`,
    snapshot: {},
    status: "completed" as const,
    userId,
    // Runs of the demo workspace: /hermes run reads the asking team's runs only.
    teamId: DEMO.team,
    channelId: DEMO.general,
    requestText: "a request",
  });
  await h.store.handle.db.insert(runs).values([run("run_mine", DEMO.user), run("run_admins", DEMO.admin)]);
}, 60_000);

afterAll(() => h?.stop());

async function hermes(user: string, text: string): Promise<string> {
  const before = h.emulator.workspace.ephemeralMessages(DEMO.general, user).length;
  expect((await h.sender.slashCommand({ user, channel: DEMO.general, text })).status).toBe(200);
  const m = await eventually(() => h.emulator.workspace.ephemeralMessages(DEMO.general, user)[before]);
  return `${m.text}\n${blocksText(m.blocks)}`;
}

const refusals = async (user: string) =>
  (await h.services.storage.audit.query({ user, action: "tool.denied", limit: 10 })).rows.map((r) => ({
    args: r.args,
    error: r.error,
  }));

describe("/hermes run <id>", () => {
  it("someone else's run and a run that does not exist get the same sentence, query and audit row", async () => {
    reads.length = 0;
    const theirs = await hermes(DEMO.user, "run run_admins");
    const none = await hermes(DEMO.user, "run run_nosuch1");
    expect(theirs).toBe(`${runNotFound("run_admins")}\n${runNotFound("run_admins")}`);
    expect(none).toBe(theirs.replaceAll("run_admins", "run_nosuch1"));
    expect(theirs).not.toMatch(/Only admins and the person/);
    // One read each, scoped to the caller (and their team), finding nothing either way.
    expect(reads).toEqual([
      { runId: "run_admins", scope: { team: DEMO.team, requester: DEMO.user }, found: false },
      { runId: "run_nosuch1", scope: { team: DEMO.team, requester: DEMO.user }, found: false },
    ]);
    // Both are audited as refused, with the same row but for the id.
    const rows = await refusals(DEMO.user);
    expect(
      rows.map((r) => JSON.stringify(r).replaceAll("run_admins", "ID").replaceAll("run_nosuch1", "ID")),
    ).toEqual([
      JSON.stringify({ args: { subcommand: "run" }, error: runNotFound("ID") }),
      JSON.stringify({ args: { subcommand: "run" }, error: runNotFound("ID") }),
    ]);
  });

  it("the requester and admins still see the run", async () => {
    expect(await hermes(DEMO.user, "run run_mine")).toContain("Run run_mine");
    expect(await hermes(DEMO.admin, "run run_mine")).toContain("Run run_mine");
    expect(await hermes(DEMO.admin, "run run_admins")).toContain("Run run_admins");
    expect(await hermes(DEMO.admin, "run run_nosuch2")).toContain(runNotFound("run_nosuch2"));
  });
});
