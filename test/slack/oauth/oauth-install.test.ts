import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEMO } from "../../../src/sandbox/seed-demo-workspace.ts";
import { keyIdOf } from "../../../src/slack/oauth/token-cipher.ts";
import { waitFor } from "../../helpers/hermes-harness.ts";
import { answer, ScriptedModelServer } from "../../helpers/scripted-model.ts";
import { install, type OAuthHermes, queryRows, startOAuthHermes } from "./oauth-hermes.ts";

describe("OAuth install (/slack/install → Slack → /slack/oauth_redirect) into an encrypted store", () => {
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

  it("installs a workspace: state checked, code exchanged, the tokens stored sealed", async () => {
    const done = await install(t, { teamId: DEMO.team });
    expect(done.start.status).toBe(302);
    expect(done.authorize).toContain("/oauth/v2/authorize?");
    expect(new URL(done.authorize).searchParams.get("scope")).toContain("app_mentions:read");
    expect(done.status).toBe(200);
    expect(done.page).toContain("Hermes is installed in Acme");
    expect(done.token).toMatch(/^xoxb-/);

    const rows = await queryRows<{ install_key: string; team_id: string; secrets: string; key_id: string }>(
      t,
      "SELECT install_key, team_id, secrets, key_id FROM slack_installations",
    );
    expect(rows.map((r) => [r.install_key, r.team_id])).toEqual([["T:T0001", "T0001"]]);
    const sealed = rows[0]!.secrets;
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain(done.token);
    expect(sealed).not.toContain("xox");
    expect(Buffer.from(sealed.split(".").at(-1)!, "base64url").includes(Buffer.from(done.token))).toBe(false);
  });

  it("a mention in the installed workspace is answered with the installation's token", async () => {
    const done = await install(t, { teamId: DEMO.team });
    model.enqueue(answer("Installed and answering."));
    t.emulator.clearCalls();
    const d = await t.sender.appMention({ user: DEMO.user, channel: DEMO.ops, text: "<@U0HERMES> hello" });
    expect(d.status).toBe(200);
    await waitFor(
      () => t.thread(DEMO.ops, d.message!.ts)?.find((m) => m.text === "Installed and answering."),
      30_000,
      "answer",
    );
    const posts = t.emulator.callsTo("chat.postMessage");
    expect(posts.length).toBeGreaterThan(0);
    expect(posts.every((c) => c.token === done.token && c.teamId === DEMO.team)).toBe(true);
  });

  it("a slash command from the installed workspace is answered as its workspace's", async () => {
    await install(t, { teamId: DEMO.team });
    const before = t.ws.ephemeralMessages(DEMO.ops, DEMO.user).length;
    const d = await t.sender.slashCommand({ user: DEMO.user, channel: DEMO.ops, text: "whoami" });
    expect(d.status).toBe(200);
    const shown = await waitFor(
      () => t.ws.ephemeralMessages(DEMO.ops, DEMO.user)[before],
      30_000,
      "/hermes whoami",
    );
    expect(JSON.stringify(shown)).toContain(DEMO.user);
    expect(JSON.stringify(shown)).not.toMatch(/not tied to a Slack workspace/);
  });

  it("app_uninstalled deletes the installation; its workspace's events are then ignored", async () => {
    await install(t, { teamId: DEMO.team });
    const removed = await t.sender.event({ type: "app_uninstalled" });
    expect(removed.status).toBe(200);
    await waitFor(
      async () =>
        (await queryRows(t, "SELECT 1 FROM slack_installations WHERE install_key = 'T:T0001'")).length === 0,
      10_000,
      "installation deleted",
    );
    t.emulator.clearCalls();
    const d = await t.sender.appMention({
      user: DEMO.user,
      channel: DEMO.ops,
      text: "<@U0HERMES> still there?",
    });
    expect(d.status).toBe(200);
    // Answered without being recorded: no turn was claimed for it (a claim lands before the answer).
    expect(await queryRows(t, `SELECT 1 FROM slack_events WHERE event_id = '${d.eventId}'`)).toEqual([]);
    expect(model.requests).toHaveLength(0);
    expect(t.emulator.callsTo("chat.postMessage")).toHaveLength(0);
  });

  it("key rotation: restarted with a new key and the old one as previous, rows are re-sealed and still serve", async () => {
    const done = await install(t, { teamId: DEMO.team });
    const oldKey = t.key;
    const newKey = randomBytes(32).toString("hex");
    await t.stopHermes();
    t = await startOAuthHermes({ model, reuse: t, key: newKey, previousKey: oldKey });
    const newId = keyIdOf(Buffer.from(newKey, "hex"));
    await waitFor(
      async () => {
        const rows = await queryRows<{ key_id: string }>(t, "SELECT key_id FROM slack_installations");
        return rows.length === 1 && rows[0]!.key_id === newId;
      },
      10_000,
      "rows re-sealed with the new key",
    );
    model.enqueue(answer("Still answering after the key rotation."));
    const d = await t.sender.appMention({
      user: DEMO.user,
      channel: DEMO.ops,
      text: "<@U0HERMES> still there?",
    });
    await waitFor(
      () =>
        t.thread(DEMO.ops, d.message!.ts)?.find((m) => m.text === "Still answering after the key rotation."),
      30_000,
      "answer",
    );
    expect(t.emulator.callsTo("chat.postMessage").at(-1)?.token).toBe(done.token);
  });

  it("refuses a redirect whose state is not this browser's, and stores nothing", async () => {
    const before = await queryRows<{ n: string }>(t, "SELECT count(*)::text AS n FROM slack_installations");
    t.emulator.oauth!.nextInstall = { teamId: DEMO.team };
    const start = await fetch(`${t.base}/slack/install`, { redirect: "manual" });
    const cookie = (start.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const allowed = await fetch(start.headers.get("location") ?? "", { redirect: "manual" });
    const redirect = new URL(allowed.headers.get("location") ?? "");
    redirect.searchParams.set("state", "forged-state");
    const refused = await fetch(redirect, { headers: { cookie }, redirect: "manual" });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("Start again from the install page");
    // Without the browser's cookie the genuine state is refused too.
    redirect.searchParams.set(
      "state",
      new URL(allowed.headers.get("location") ?? "").searchParams.get("state")!,
    );
    expect((await fetch(redirect, { redirect: "manual" })).status).toBe(400);
    const after = await queryRows<{ n: string }>(t, "SELECT count(*)::text AS n FROM slack_installations");
    expect(after).toEqual(before);
  });
});
