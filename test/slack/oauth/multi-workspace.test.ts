import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../../../src/core/logger.ts";
import { DEMO } from "../../../src/sandbox/seed-demo-workspace.ts";
import type { Workspace } from "../../../src/sandbox/workspace.ts";
import { waitFor } from "../../helpers/hermes-harness.ts";
import { answer, ScriptedModelServer, toolCalls } from "../../helpers/scripted-model.ts";
import { sandboxWebClient } from "../../helpers/slack.ts";
import {
  install,
  type OAuthHermes,
  queryRows,
  senderFor,
  startOAuthHermes,
  workspace,
} from "./oauth-hermes.ts";

/** Bot replies in a thread of `ws` that say `text`. */
const replyIn = (ws: Workspace, channel: string, ts: string, text: string) =>
  ws.replies(channel, ts)?.find((m) => m.user === DEMO.bot && m.text === text);

describe("installs beyond one workspace: each workspace's work with its own token", () => {
  const model = new ScriptedModelServer();
  let t: OAuthHermes;
  beforeAll(async () => {
    await model.start();
    t = await startOAuthHermes({ model });
  }, 180_000);
  afterAll(async () => {
    await t?.stop();
    await model.stop();
  });
  beforeEach(() => model.reset());

  it("two workspaces installed: a mention in each is answered there, with that workspace's token", async () => {
    const beta = t.emulator.addWorkspace(workspace("T0002", "Beta"));
    const acmeToken = (await install(t, { teamId: DEMO.team })).token;
    const betaToken = (await install(t, { teamId: "T0002" })).token;
    expect(acmeToken).not.toBe(betaToken);
    t.emulator.clearCalls();
    // The model answers each by what it was asked (the turns run side by side).
    model.enqueue(
      (req) => answer(String(req.body.messages.at(-1)?.content).includes("acme") ? "For Acme." : "For Beta."),
      (req) => answer(String(req.body.messages.at(-1)?.content).includes("acme") ? "For Acme." : "For Beta."),
    );
    const [a, b] = await Promise.all([
      t.sender.appMention({ user: DEMO.user, channel: DEMO.ops, text: "<@U0HERMES> acme question" }),
      senderFor(t, beta).appMention({
        user: DEMO.user,
        channel: DEMO.ops,
        text: "<@U0HERMES> beta question",
      }),
    ]);
    await waitFor(() => replyIn(t.ws, DEMO.ops, a.message!.ts, "For Acme."), 30_000, "Acme's answer");
    await waitFor(() => replyIn(beta, DEMO.ops, b.message!.ts, "For Beta."), 30_000, "Beta's answer");
    // Neither answer went to the other workspace.
    expect(replyIn(t.ws, DEMO.ops, a.message!.ts, "For Beta.")).toBeUndefined();
    expect(replyIn(beta, DEMO.ops, b.message!.ts, "For Acme.")).toBeUndefined();
    const calls = t.emulator.calls.filter((c) => c.method.startsWith("chat."));
    expect(calls.length).toBeGreaterThan(0);
    for (const c of calls) expect(c.token).toBe(c.teamId === "T0002" ? betaToken : acmeToken);
    expect(new Set(calls.map((c) => c.teamId))).toEqual(new Set([DEMO.team, "T0002"]));
  });

  it("a file shared in the second workspace is read with that workspace's token", async () => {
    const beta = t.emulator.workspaceOf("T0002")!;
    const betaToken = t.emulator.callsTo("chat.postMessage").find((c) => c.teamId === "T0002")?.token;
    t.emulator.clearCalls();
    model.enqueue(answer("Read Beta's file."));
    const said = await senderFor(t, beta).userSays({
      user: DEMO.user,
      channel: DEMO.ops,
      text: "<@U0HERMES> what is in this file?",
      files: [{ name: "beta-notes.csv", bytes: Buffer.from("host,state\nbeta-gw,down\n") }],
    });
    await waitFor(
      () => replyIn(beta, DEMO.ops, said.message.ts, "Read Beta's file."),
      30_000,
      "Beta's answer",
    );
    expect(JSON.stringify(model.requests[0]!.body.messages)).toContain("beta-gw");
    expect(t.emulator.callsTo("files.info").map((c) => [c.teamId, c.token])).toEqual([["T0002", betaToken]]);
  });

  it("an approval in the second workspace: the card, the click and the resumed run all go as that workspace", async () => {
    const beta = t.emulator.workspaceOf("T0002")!;
    const betaToken = t.emulator.callsTo("chat.postMessage").find((c) => c.teamId === "T0002")?.token;
    t.emulator.clearCalls();
    model.enqueue(
      toolCalls([{ name: "send_message", args: { to: "<@U0WANGLEI>", text: "Beta joins at three" } }]),
    );
    const d = await senderFor(t, beta).appMention({
      user: DEMO.user,
      channel: DEMO.ops,
      text: "<@U0HERMES> tell Wang Lei Beta joins at three",
    });
    const card = await waitFor(
      () =>
        beta
          .replies(DEMO.ops, d.message!.ts)
          ?.find((m) => (m.blocks as Array<{ type: string }> | undefined)?.some((b) => b.type === "actions")),
      30_000,
      "approval card in Beta",
    );
    const approvalId = String(
      (card.blocks as Array<{ type: string; elements?: Array<{ value?: string }> }>).find(
        (b) => b.type === "actions",
      )!.elements![0]!.value,
    );
    model.enqueue(answer("Told Wang Lei in Beta."));
    const click = await senderFor(t, beta).blockAction({
      user: DEMO.user,
      actionId: "hermes.approve",
      value: approvalId,
      channel: DEMO.ops,
      messageTs: card.ts,
    });
    expect(click.status).toBe(200);
    await waitFor(
      () => replyIn(beta, DEMO.ops, d.message!.ts, "Told Wang Lei in Beta."),
      30_000,
      "answer after approval",
    );
    expect(beta.history(DEMO.dmWangLei).some((m) => m.text.includes("Beta joins at three"))).toBe(true);
    expect(t.ws.history(DEMO.dmWangLei).some((m) => m.text.includes("Beta joins at three"))).toBe(false);
    const calls = t.emulator.calls.filter((c) => c.token !== undefined);
    expect(calls.every((c) => c.token === betaToken && c.teamId === "T0002")).toBe(true);
  });

  it("an approval of the second workspace that expires: its card is updated there, its run told", async () => {
    const beta = t.emulator.workspaceOf("T0002")!;
    model.enqueue(toolCalls([{ name: "send_message", args: { to: "<@U0WANGLEI>", text: "Never sent" } }]));
    const d = await senderFor(t, beta).appMention({
      user: DEMO.user,
      channel: DEMO.ops,
      text: "<@U0HERMES> tell Wang Lei something",
    });
    const isCard = (m: { blocks?: unknown[] }) =>
      (m.blocks as Array<{ type: string }> | undefined)?.some((b) => b.type === "actions");
    const card = await waitFor(() => beta.replies(DEMO.ops, d.message!.ts)?.find(isCard), 30_000, "card");
    await queryRows(
      t,
      "UPDATE approvals SET expires_at = now() - interval '1 second' WHERE status = 'pending'",
    );
    model.enqueue(answer("Expired in Beta, nothing sent."));
    const { services } = t.hermes;
    const { expireApprovals } = await import("../../../src/boot/background-work.ts");
    expect(await expireApprovals({ ...services, teams: services.slack.installs!.workspaces })).toBe(1);
    await waitFor(
      () => replyIn(beta, DEMO.ops, d.message!.ts, "Expired in Beta, nothing sent."),
      30_000,
      "answer",
    );
    expect(JSON.stringify(beta.getMessage(DEMO.ops, card.ts))).toContain("Expired");
  });

  it("an org-wide install serves two workspaces of the org, naming the workspace on each call", async () => {
    t.emulator.addOrg({ id: "E0001", name: "Globex" });
    const north = t.emulator.addWorkspace(workspace("T0101", "North"), { enterpriseId: "E0001" });
    const south = t.emulator.addWorkspace(workspace("T0102", "South"), { enterpriseId: "E0001" });
    const done = await install(t, { enterpriseId: "E0001" });
    expect(done.page).toContain("Globex organization");
    const rows = await queryRows<{ team_id: string | null; is_enterprise_install: boolean }>(
      t,
      "SELECT team_id, is_enterprise_install FROM slack_installations WHERE install_key = 'E:E0001'",
    );
    expect(rows).toEqual([{ team_id: null, is_enterprise_install: true }]);
    t.emulator.clearCalls();
    model.enqueue(answer("North answered."), answer("South answered."));
    const n = await senderFor(t, north, { orgInstall: true }).appMention({
      user: DEMO.user,
      channel: DEMO.ops,
      text: "<@U0HERMES> north",
    });
    expect(n.payload).toMatchObject({
      enterprise_id: "E0001",
      context_team_id: "T0101",
      authorizations: [{ enterprise_id: "E0001", team_id: null, is_enterprise_install: true }],
    });
    await waitFor(() => replyIn(north, DEMO.ops, n.message!.ts, "North answered."), 30_000, "North's answer");
    const s = await senderFor(t, south, { orgInstall: true }).appMention({
      user: DEMO.user,
      channel: DEMO.ops,
      text: "<@U0HERMES> south",
    });
    await waitFor(() => replyIn(south, DEMO.ops, s.message!.ts, "South answered."), 30_000, "South's answer");
    const calls = t.emulator.calls.filter((c) => c.method.startsWith("chat."));
    for (const c of calls) {
      expect(c.token).toBe(done.token);
      expect(c.args.team_id).toBe(c.teamId);
    }
    expect(new Set(calls.map((c) => c.teamId))).toEqual(new Set(["T0101", "T0102"]));
    // The workspaces seen are remembered: a job naming only its team finds the org's token.
    const seen = await queryRows<{ team_id: string }>(
      t,
      "SELECT team_id FROM slack_installation_teams WHERE enterprise_id = 'E0001' ORDER BY team_id",
    );
    expect(seen.map((r) => r.team_id)).toEqual(["T0101", "T0102"]);
  });

  it("an org token must name the workspace where Slack requires it (team_id), and Hermes does", async () => {
    const orgToken = t.emulator.callsTo("chat.postMessage").find((c) => c.teamId === "T0102")?.token ?? "";
    expect(orgToken).not.toBe("");
    const raw = sandboxWebClient(t.emulator, { token: orgToken });
    await expect(raw.conversations.list()).rejects.toMatchObject({ data: { error: "missing_argument" } });
    const { slack } = t.hermes.services;
    const listed = await slack.installs!.workspaces.run("T0102", () => slack.client.conversations.list({}));
    expect(listed.channels?.map((c) => c.id)).toContain(DEMO.ops);
    expect(t.emulator.callsTo("conversations.list").at(-1)).toMatchObject({
      teamId: "T0102",
      args: { team_id: "T0102" },
    });
    // Outside any workspace's work there is no Slack to call: a sentence, not a wrong workspace.
    await expect(slack.client.chat.postMessage({ channel: DEMO.ops, text: "x" })).rejects.toThrow(
      /not tied to a Slack workspace/,
    );
  });
});

describe("token rotation: an expiring bot token is refreshed once and stored sealed", () => {
  const model = new ScriptedModelServer();
  let t: OAuthHermes;
  // Every line Hermes writes, at debug and without the log redactor: no token may be in one.
  const lines: string[] = [];
  const logger = createLogger({
    level: "debug",
    destination: { write: (line: string) => void lines.push(line) },
  });
  beforeAll(async () => {
    await model.start();
    // The install's token expires in a minute (inside the two hours before expiry when it is refreshed).
    t = await startOAuthHermes({ model, logger, rotation: { expiresIn: 60, refreshedExpiresIn: 43_200 } });
  }, 180_000);
  afterAll(async () => {
    await t?.stop();
    await model.stop();
  });

  it("concurrent turns share one refresh; every call then uses the new token", async () => {
    const done = await install(t, { teamId: DEMO.team });
    expect(done.token).toMatch(/^xoxe\.xoxb-/);
    expect(done.refreshToken).toMatch(/^xoxe-1-/);
    t.emulator.clearCalls();
    model.enqueue(answer("First."), answer("Second."));
    const [a, b] = await Promise.all([
      t.sender.appMention({ user: DEMO.user, channel: DEMO.ops, text: "<@U0HERMES> one" }),
      t.sender.appMention({ user: DEMO.admin, channel: DEMO.general, text: "<@U0HERMES> two" }),
    ]);
    await waitFor(
      () =>
        t.thread(DEMO.ops, a.message!.ts)?.some((m) => m.user === DEMO.bot && /First|Second/.test(m.text)),
      30_000,
      "one",
    );
    await waitFor(
      () =>
        t
          .thread(DEMO.general, b.message!.ts)
          ?.some((m) => m.user === DEMO.bot && /First|Second/.test(m.text)),
      30_000,
      "two",
    );
    expect(t.emulator.oauth!.refreshes).toBe(1);
    const refreshed = t.emulator
      .callsTo("oauth.v2.access")
      .find((c) => c.args.grant_type === "refresh_token");
    expect(refreshed?.args.refresh_token).toBe(done.refreshToken);
    const newToken = String(refreshed?.response?.access_token);
    const newRefreshToken = String(refreshed?.response?.refresh_token);
    expect(newToken).not.toBe(done.token);
    expect(newRefreshToken).not.toBe(done.refreshToken);
    const posts = t.emulator.calls.filter((c) => c.method.startsWith("chat."));
    expect(posts.length).toBeGreaterThan(0);
    expect(posts.every((c) => c.token === newToken)).toBe(true);
    // Stored again, sealed: the row holds neither token in the clear, and opens to the new one.
    const [row] = await queryRows<{ secrets: string }>(t, "SELECT secrets FROM slack_installations");
    expect(row!.secrets).not.toContain(newToken);
    expect(row!.secrets).not.toContain(newRefreshToken);
    const stored = await t.hermes.services.slack.installs!.install.store.fetchInstallation({
      teamId: DEMO.team,
      enterpriseId: undefined,
      isEnterpriseInstall: false,
    });
    expect(stored.bot?.token).toBe(newToken);
    expect(stored.bot?.refreshToken).toBe(newRefreshToken);
    expect(stored.bot?.expiresAt).toBeGreaterThan(Date.now() / 1000 + 3600 * 11);
    const written = lines.join("\n");
    expect(lines.length).toBeGreaterThan(10);
    for (const secret of [done.token, newToken, done.refreshToken!, newRefreshToken])
      expect(written).not.toContain(secret);
  });
});
