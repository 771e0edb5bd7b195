/**
 * End to end over real HTTP and the real Bolt app: OAuth installs of two workspaces (A, B) and an
 * org-wide install of org E (workspaces E1, E2) are stored sealed and served by one Hermes, and no
 * row of one tenant (tickets, memories, audit rows) reaches a model or a reader of another. The
 * scripted model makes the tool calls; what each call returned is read from the `tool` messages of
 * the model's next request, exactly what the model was shown.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../../../src/sandbox/seed-demo-workspace.ts";
import type { Workspace } from "../../../src/sandbox/workspace.ts";
import { blocksText } from "../../helpers/bolt-app.ts";
import { waitFor } from "../../helpers/hermes-harness.ts";
import {
  answer,
  type RecordedRequest,
  ScriptedModelServer,
  type ScriptStep,
  toolCalls,
} from "../../helpers/scripted-model.ts";
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
const A_TITLE = "A's secret outage";
const A_FACT = "A's VPN gateway nickname is heron";
const E1_TITLE = "E1's private incident";

/** The `tool` messages of a model request, by tool call id. */
const toolResults = (req: RecordedRequest) =>
  Object.fromEntries(
    req.body.messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, String(m.content)]),
  );

describe("OAuth installs of two workspaces and an org: no data crosses between tenants", () => {
  const model = new ScriptedModelServer();
  let t: OAuthHermes;
  let beta: Workspace;
  let e1: Workspace;
  let e2: Workspace;
  const tokens: string[] = [];

  beforeAll(async () => {
    await model.start();
    t = await startOAuthHermes({ model });
    beta = t.emulator.addWorkspace(workspace(TEAM_B, "Beta"));
    t.emulator.addOrg({ id: ORG_E, name: "Globex" });
    e1 = t.emulator.addWorkspace(workspace(TEAM_E1, "North"), { enterpriseId: ORG_E });
    e2 = t.emulator.addWorkspace(workspace(TEAM_E2, "South"), { enterpriseId: ORG_E });
    for (const target of [{ teamId: TEAM_A }, { teamId: TEAM_B }, { enterpriseId: ORG_E }]) {
      const done = await install(t, target);
      expect(done.status).toBe(200);
      tokens.push(done.token);
    }
  }, 180_000);
  afterAll(async () => {
    await t?.stop();
    await model.stop();
  });

  /**
   * A mention in `ws` whose run makes `calls` (one model step), then answers `done`; resolves with
   * what the tool calls returned once the answer is in the thread.
   */
  async function turn(
    ws: Workspace,
    calls: Array<{ id: string; name: string; args: unknown }>,
    done: string,
    o: { orgInstall?: boolean } = {},
  ): Promise<Record<string, string>> {
    model.reset();
    let seen: RecordedRequest | undefined;
    const finish: ScriptStep = (req) => {
      seen = req;
      return answer(done);
    };
    model.enqueue(toolCalls(calls), finish);
    const sender = ws === t.ws ? t.sender : senderFor(t, ws, o);
    const d = await sender.appMention({ user: DEMO.user, channel: DEMO.ops, text: "<@U0HERMES> please" });
    expect(d.status).toBe(200);
    await waitFor(
      () => ws.replies(DEMO.ops, d.message!.ts)?.find((m) => m.user === DEMO.bot && m.text === done),
      30_000,
      `"${done}" in ${ws.team.id}`,
    );
    expect(model.remaining).toBe(0);
    const results = toolResults(seen!);
    expect(Object.keys(results).sort()).toEqual(calls.map((c) => c.id).sort());
    return results;
  }

  let aTicket = 0;
  let e1Ticket = 0;

  it("in A, the model opens a ticket and remembers a fact; A itself reads both back", async () => {
    const made = await turn(
      t.ws,
      [
        { id: "a_create", name: "create_ticket", args: { title: A_TITLE } },
        { id: "a_remember", name: "remember", args: { fact: A_FACT } },
      ],
      "Done in A.",
    );
    aTicket = Number(/"created":\s*"#(\d+)"/.exec(made.a_create!)?.[1]);
    expect(aTicket).toBeGreaterThan(0);
    expect(made.a_remember).toMatch(/Remembered for you only/);
    // The same tools, in A, do see A's rows (so the misses below are the tenant's doing).
    const read = await turn(
      t.ws,
      [
        { id: "a_get", name: "get_ticket", args: { id: aTicket } },
        { id: "a_search", name: "search_tickets", args: { query: "secret outage" } },
        { id: "a_recall", name: "recall", args: { query: "heron" } },
      ],
      "Read back in A.",
    );
    expect(read.a_get).toContain(A_TITLE);
    expect(read.a_search).toContain(A_TITLE);
    expect(read.a_recall).toContain("heron");
  });

  /** Every way a model in another tenant could reach A's ticket and fact: each finds nothing. */
  const probesOfA = (p: string) => [
    { id: `${p}_search`, name: "search_tickets", args: { query: "secret outage" } },
    { id: `${p}_all`, name: "search_tickets", args: {} },
    { id: `${p}_get`, name: "get_ticket", args: { id: aTicket } },
    { id: `${p}_recall`, name: "recall", args: { query: "heron" } },
    { id: `${p}_newest`, name: "recall", args: { query: "*" } },
  ];
  const expectNothingOfA = (got: Record<string, string>, p: string) => {
    expect(got[`${p}_search`]).toMatch(/No tickets match/);
    expect(got[`${p}_get`]).toContain(`There is no ticket #${aTicket}.`);
    expect(got[`${p}_recall`]).toMatch(/Nothing has been remembered here yet|No memories match/);
    expect(got[`${p}_newest`]).toMatch(/Nothing has been remembered here yet/);
    for (const content of Object.values(got)) {
      expect(content).not.toContain(A_TITLE);
      expect(content).not.toContain("secret outage");
      expect(content).not.toContain("heron");
    }
  };

  it("in B (same user and channel ids as in A), the model finds neither A's ticket nor A's fact", async () => {
    const got = await turn(beta, probesOfA("b"), "Nothing in B.");
    expectNothingOfA(got, "b");
    expect(got.b_all).toMatch(/No tickets match/);
  });

  it("org-wide install: a ticket of E1 is E1's; E2 sees neither it nor A's rows", async () => {
    const made = await turn(
      e1,
      [{ id: "e1_create", name: "create_ticket", args: { title: E1_TITLE } }],
      "Done in E1.",
      { orgInstall: true },
    );
    e1Ticket = Number(/"created":\s*"#(\d+)"/.exec(made.e1_create!)?.[1]);
    expect(e1Ticket).toBeGreaterThan(aTicket);
    const got = await turn(
      e2,
      [
        ...probesOfA("e2"),
        { id: "e2_get_e1", name: "get_ticket", args: { id: e1Ticket } },
        { id: "e2_search_e1", name: "search_tickets", args: { query: "private incident" } },
      ],
      "Nothing in E2.",
      { orgInstall: true },
    );
    expectNothingOfA(got, "e2");
    expect(got.e2_all).toMatch(/No tickets match/);
    expect(got.e2_get_e1).toContain(`There is no ticket #${e1Ticket}.`);
    expect(got.e2_search_e1).toMatch(/No tickets match/);
    for (const content of Object.values(got)) expect(content).not.toContain(E1_TITLE);
    // The tenant of an org-wide install's event is its workspace, not the org.
    const rows = await queryRows<{ id: number; team_id: string }>(
      t,
      "SELECT id, team_id FROM tickets ORDER BY id",
    );
    expect(rows).toEqual([
      { id: aTicket, team_id: TEAM_A },
      { id: e1Ticket, team_id: TEAM_E1 },
    ]);
    const facts = await queryRows<{ team_id: string; fact: string }>(t, "SELECT team_id, fact FROM memories");
    expect(facts).toEqual([{ team_id: TEAM_A, fact: A_FACT }]);
  });

  it("/hermes audit in B shows none of A's rows; each team's chain verifies alone", async () => {
    // The answer comes through the command's `response_url`, into B's workspace; A sees none.
    const answers = () => beta.ephemeralMessages(DEMO.ops, DEMO.admin);
    expect(answers()).toEqual([]);
    const d = await senderFor(t, beta).slashCommand({ user: DEMO.admin, channel: DEMO.ops, text: "audit" });
    expect(d.status).toBe(200);
    const page = await waitFor(() => answers()[0], 30_000, "/hermes audit in B");
    expect(t.ws.ephemeralMessages(DEMO.ops, DEMO.admin)).toEqual([]);
    const shown = blocksText(page.blocks);
    const { audit } = t.hermes.services.storage;
    const bRows = (await audit.query({ team: TEAM_B, limit: 500 })).rows;
    expect(new Set(bRows.map((r) => r.teamId))).toEqual(new Set([TEAM_B]));
    // Every row on the page is one of B's (its probes and this very read); A's calls are not there.
    const listed = [...shown.matchAll(/`#(\d+)`/g)].map((m) => Number(m[1]));
    expect(listed.length).toBeGreaterThan(5);
    expect(listed.every((id) => bRows.some((r) => r.id === id))).toBe(true);
    expect(shown).toContain("search_tickets");
    expect(shown).toContain(`There is no ticket #${aTicket}.`);
    expect(bRows.map((r) => r.tool)).not.toContain("create_ticket");
    expect(bRows.map((r) => r.tool)).not.toContain("remember");
    for (const ofA of ["`create_ticket`", "`remember`", A_TITLE, A_FACT]) expect(shown).not.toContain(ofA);
    for (const ofA of [A_TITLE, A_FACT]) expect(JSON.stringify(bRows)).not.toContain(ofA);
    // One chain per workspace (the org's workspaces included, never the org itself).
    const chains = await audit.chains();
    for (const team of [TEAM_A, TEAM_B, TEAM_E1, TEAM_E2]) {
      expect(chains).toContain(team);
      const verified = await audit.verify({ team });
      expect(verified.ok).toBe(true);
      expect(verified.ok && verified.rows).toBeGreaterThan(0);
    }
    expect(chains).not.toContain(ORG_E);
    const aRows = (await audit.query({ team: TEAM_A, limit: 500 })).rows;
    expect(aRows.some((r) => r.tool === "create_ticket")).toBe(true);
    expect(aRows.every((r) => r.teamId === TEAM_A)).toBe(true);
  });

  it("the three installations are stored sealed: no token in any row", async () => {
    const rows = await queryRows<Record<string, unknown>>(t, "SELECT * FROM slack_installations");
    expect(rows).toHaveLength(3);
    expect(new Set(tokens).size).toBe(3);
    const stored = JSON.stringify(rows);
    for (const token of tokens) {
      expect(token).toMatch(/^xox/);
      expect(stored).not.toContain(token);
    }
    expect(stored).not.toContain("xoxb-");
  });
});
