/**
 * End to end over real HTTP and the real Bolt app: with OAuth installs of two workspaces (A, B) and
 * an org-wide install of org E (workspaces E1, E2), a schedule added with `/hermes schedule add` in a
 * workspace is that workspace's: it fires there (its header, its owner's turn and the answer in that
 * workspace's channel, every Slack call with that workspace's token), nothing is posted anywhere
 * else, and no other workspace's `/hermes schedule list` shows it.
 *
 * E1's schedule is stored as `/hermes schedule add` stores it rather than sent as the command: the
 * emulator's slash commands do not carry an org-wide install's `enterprise_id` /
 * `is_enterprise_install` yet, so Hermes (rightly) finds no installation for them. E1 is made known
 * to Hermes first by a request from it (Home opened), as the command itself would.
 *
 * The running app's scheduler reads the system clock, so the fire is the scheduler's catch-up at
 * start-up: each schedule's slot passed two minutes ago (it was added "an hour ago", by its row), and
 * a restarted Hermes runs that missed slot once, at once, as a real fire through `start-hermes.ts`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../../../src/sandbox/seed-demo-workspace.ts";
import type { Workspace } from "../../../src/sandbox/workspace.ts";
import { waitFor } from "../../helpers/hermes-harness.ts";
import { answer, ScriptedModelServer } from "../../helpers/scripted-model.ts";
import {
  install,
  type OAuthHermes,
  queryRows,
  senderFor,
  startOAuthHermes,
  workspace,
} from "./oauth-hermes.ts";

const TEAM_A = DEMO.team; // the emulator's own workspace
const TEAM_B = "T0002";
const ORG_E = "E0001";
const TEAM_E1 = "T0101";
const TEAM_E2 = "T0102";
/** What each workspace's schedule asks, and what the model answers to it. */
const PROMPT = {
  [TEAM_B]: "summarize the urgent tickets of Beta",
  [TEAM_E1]: "summarize the incidents of North",
};
const ANSWER = { [TEAM_B]: "B has two urgent tickets.", [TEAM_E1]: "E1 has one open incident." };
type Scheduled = keyof typeof PROMPT;

describe("OAuth installs of two workspaces and an org: a schedule fires in its own workspace only", () => {
  const model = new ScriptedModelServer();
  let t: OAuthHermes;
  let beta: Workspace;
  let e1: Workspace;
  let e2: Workspace;
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    await model.start();
    t = await startOAuthHermes({ model });
    beta = t.emulator.addWorkspace(workspace(TEAM_B, "Beta"));
    t.emulator.addOrg({ id: ORG_E, name: "Globex" });
    e1 = t.emulator.addWorkspace(workspace(TEAM_E1, "North"), { enterpriseId: ORG_E });
    e2 = t.emulator.addWorkspace(workspace(TEAM_E2, "South"), { enterpriseId: ORG_E });
    for (const [key, target] of [
      [TEAM_A, { teamId: TEAM_A }],
      [TEAM_B, { teamId: TEAM_B }],
      [ORG_E, { enterpriseId: ORG_E }],
    ] as const) {
      const done = await install(t, target);
      expect(done.status).toBe(200);
      tokens[key] = done.token;
    }
    expect(new Set(Object.values(tokens)).size).toBe(3);
  }, 180_000);
  afterAll(async () => {
    await t?.stop();
    await model.stop();
  });

  /** `/hermes <text>` by the admin in `ws`'s #ops; its answer, from the command's `response_url`. */
  async function command(ws: Workspace, text: string): Promise<string> {
    const before = ws.ephemeralMessages(DEMO.ops, DEMO.admin).length;
    const sender = ws === t.ws ? t.sender : senderFor(t, ws);
    const d = await sender.slashCommand({ user: DEMO.admin, channel: DEMO.ops, text });
    expect(d.status).toBe(200);
    const shown = await waitFor(
      () => ws.ephemeralMessages(DEMO.ops, DEMO.admin)[before],
      30_000,
      `answer to /hermes ${text} in ${ws.team.id}`,
    );
    return shown.text;
  }

  const ids: Partial<Record<Scheduled, number>> = {};

  it("`/hermes schedule add` in B stores the schedule as B's; A's list shows none of it", async () => {
    // Daily at the UTC minute two minutes ago: the next slot is a day away, so nothing fires now.
    const slot = new Date(Date.now() - 120_000);
    const cron = `${slot.getUTCMinutes()} ${slot.getUTCHours()} * * *`;
    const added = await command(beta, `schedule add "${cron}" #ops "${PROMPT[TEAM_B]}"`);
    ids[TEAM_B] = Number(/Added schedule \*(\d+)\*/.exec(added)?.[1]);
    expect(ids[TEAM_B], added).toBeGreaterThan(0);
    expect(added).toContain("it runs as you");
    // E1: a request from it, then its schedule as the command stores it (the owner, E1's #ops).
    const home = await senderFor(t, e1, { orgInstall: true }).appHomeOpened({ user: DEMO.admin });
    expect(home.status).toBe(200);
    await waitFor(
      async () =>
        (await queryRows(t, `SELECT 1 FROM slack_installation_teams WHERE team_id = '${TEAM_E1}'`)).length,
      30_000,
      "E1 known as a workspace of the org",
    );
    const [e1Row] = await queryRows<{ id: number }>(
      t,
      `INSERT INTO schedules (team_id, cron, timezone, channel_id, prompt, owner_id)
       VALUES ('${TEAM_E1}', '${cron}', 'UTC', '${DEMO.ops}', '${PROMPT[TEAM_E1]}', '${DEMO.admin}') RETURNING id`,
    );
    ids[TEAM_E1] = e1Row!.id;
    const rows = await queryRows<{ id: number; team_id: string; owner_id: string; channel_id: string }>(
      t,
      "SELECT id, team_id, owner_id, channel_id FROM schedules ORDER BY id",
    );
    expect(rows).toEqual([
      { id: ids[TEAM_B], team_id: TEAM_B, owner_id: DEMO.admin, channel_id: DEMO.ops },
      { id: ids[TEAM_E1], team_id: TEAM_E1, owner_id: DEMO.admin, channel_id: DEMO.ops },
    ]);
    const inB = await command(beta, "schedule list");
    expect(inB).toContain(`*${ids[TEAM_B]}*`);
    expect(inB).not.toContain(PROMPT[TEAM_E1]);
    const inA = await command(t.ws, "schedule list");
    expect(inA).toMatch(/^No schedules yet/);
    for (const prompt of Object.values(PROMPT)) expect(inA).not.toContain(prompt);
    // Another workspace's schedule number reads as missing in A, and the schedule stays.
    const id = ids[TEAM_B]!;
    expect(await command(t.ws, `schedule remove ${id}`)).toBe(`There is no schedule ${id}.`);
    expect(await queryRows(t, `SELECT id FROM schedules WHERE id = ${id}`)).toEqual([{ id }]);
  });

  it("each fires in its own workspace: header, its owner's turn and answer there, with that workspace's token", async () => {
    // Added an hour ago: the slot two minutes ago is one they missed while Hermes was down, and a
    // restarted Hermes catches it up once, at start-up.
    await queryRows(t, "UPDATE schedules SET created_at = now() - interval '1 hour'");
    model.reset();
    const step = (req: { body: { messages: Array<{ content?: unknown }> } }) =>
      answer(
        String(req.body.messages.at(-1)?.content).includes("of North") ? ANSWER[TEAM_E1] : ANSWER[TEAM_B],
      );
    model.enqueue(step, step);
    const quiet = [t.ws, e2].map((ws) => [ws, ws.history(DEMO.ops).length] as const);
    await t.stopHermes();
    t.emulator.clearCalls();
    t = await startOAuthHermes({ model, reuse: t, key: t.key });

    for (const [ws, team] of [
      [beta, TEAM_B],
      [e1, TEAM_E1],
    ] as const) {
      const header = await waitFor(
        () => ws.history(DEMO.ops).find((m) => m.text.startsWith(`_Schedule ${ids[team]} — catching up`)),
        30_000,
        `schedule ${ids[team]}'s header in ${team}`,
      );
      expect(header.user).toBe(DEMO.bot);
      expect(header.text).toContain(`> ${PROMPT[team]}`);
      await waitFor(
        () => ws.replies(DEMO.ops, header.ts)?.some((m) => m.user === DEMO.bot && m.text === ANSWER[team]),
        30_000,
        `the scheduled answer in ${team}'s thread`,
      );
      const texts = ws.replies(DEMO.ops, header.ts)!.map((m) => m.text);
      for (const other of Object.values(ANSWER))
        if (other !== ANSWER[team]) expect(texts).not.toContain(other);
      // The turn ran as the schedule's owner, in its workspace, in the header's thread.
      const runs = await queryRows<{ user_id: string; channel_id: string; thread_ts: string }>(
        t,
        `SELECT user_id, channel_id, thread_ts FROM runs WHERE team_id = '${team}'`,
      );
      expect(runs).toEqual([{ user_id: DEMO.admin, channel_id: DEMO.ops, thread_ts: header.ts }]);
    }
    expect(model.remaining).toBe(0);
    const fires = await queryRows<{ schedule_id: number; status: string }>(
      t,
      "SELECT schedule_id, status FROM schedule_fires ORDER BY schedule_id",
    );
    expect(fires).toEqual([
      { schedule_id: ids[TEAM_B], status: "done" },
      { schedule_id: ids[TEAM_E1], status: "done" },
    ]);

    // Every post went to its workspace with its installation's token (the org's naming E1); A and E2
    // saw no call and no message.
    const posts = t.emulator.calls.filter((c) => c.method.startsWith("chat."));
    for (const team of [TEAM_B, TEAM_E1]) {
      expect(posts.filter((c) => c.teamId === team).length).toBeGreaterThan(1);
    }
    for (const c of posts) {
      expect([TEAM_B, TEAM_E1]).toContain(c.teamId);
      expect(c.token).toBe(c.teamId === TEAM_E1 ? tokens[ORG_E] : tokens[TEAM_B]);
      if (c.teamId === TEAM_E1) expect(c.args.team_id).toBe(TEAM_E1);
    }
    expect(t.emulator.calls.filter((c) => c.teamId === TEAM_A || c.teamId === TEAM_E2)).toEqual([]);
    for (const [ws, before] of quiet) expect(ws.history(DEMO.ops)).toHaveLength(before);
  });
});
