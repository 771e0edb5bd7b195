import { randomBytes } from "node:crypto";
import type { Logger } from "../../../src/core/logger.ts";
import type { EmulatorOAuthOptions, InstallTarget } from "../../../src/sandbox/emulator-oauth.ts";
import { createEventsSender } from "../../../src/sandbox/events-sender.ts";
import { seedDemoWorkspace } from "../../../src/sandbox/seed-demo-workspace.ts";
import type { SlackApiEmulator } from "../../../src/sandbox/slack-api-server.ts";
import type { Workspace } from "../../../src/sandbox/workspace.ts";
import { SIGNING_SECRET, startTestHermes, type TestHermes } from "../../helpers/hermes-harness.ts";
import { testPool } from "../../helpers/pg.ts";
import type { ScriptedModelServer } from "../../helpers/scripted-model.ts";

export const CLIENT_ID = "1111.2222";
export const CLIENT_SECRET = "oauth-client-secret-for-tests";
export const STATE_SECRET = "oauth-state-secret-for-tests";

export type OAuthHermes = TestHermes & { key: string; base: string };

/** Another demo workspace (same people and channels) under its own team id and name. */
export const workspace = (id: string, name: string) =>
  seedDemoWorkspace({ team: { id, name, domain: name.toLowerCase() } });

/**
 * Hermes with OAuth installs (no SLACK_BOT_TOKEN) against the emulator, which plays Slack's OAuth v2
 * for the app (`CLIENT_ID` / `CLIENT_SECRET`, maybe token rotation). Nothing is installed yet.
 */
export async function startOAuthHermes(
  o: {
    model?: ScriptedModelServer;
    key?: string;
    previousKey?: string;
    rotation?: EmulatorOAuthOptions["tokenRotation"];
    reuse?: TestHermes;
    logger?: Logger;
  } = {},
): Promise<OAuthHermes> {
  const key = o.key ?? randomBytes(32).toString("base64");
  const t = await startTestHermes({
    ...(o.model ? { model: o.model } : {}),
    ...(o.reuse ? { reuse: o.reuse } : {}),
    ...(o.logger ? { logger: o.logger } : {}),
    env: {
      SLACK_BOT_TOKEN: "",
      SLACK_CLIENT_ID: CLIENT_ID,
      SLACK_CLIENT_SECRET: CLIENT_SECRET,
      SLACK_STATE_SECRET: STATE_SECRET,
      HERMES_INSTALLATION_KEY: key,
      ...(o.previousKey ? { HERMES_INSTALLATION_PREVIOUS_KEY: o.previousKey } : {}),
    },
    envOf: (emulator) => {
      emulator.oauth ??= emulator.enableOAuth({
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        ...(o.rotation ? { tokenRotation: o.rotation } : {}),
      });
      return { SLACK_AUTHORIZE_URL: `${emulator.origin}/oauth/v2/authorize` };
    },
  });
  const base = `http://127.0.0.1:${t.hermes.port}`;
  // The app's redirect URL, as set in its OAuth settings.
  t.emulator.oauth!.options.redirectUri = `${base}/slack/oauth_redirect`;
  return Object.assign(t, { key, base });
}

/** An installer's browser: `/slack/install` → Slack's authorize page → the redirect with the code. */
export async function install(t: OAuthHermes, target: InstallTarget = {}) {
  t.emulator.oauth!.nextInstall = target;
  const start = await fetch(`${t.base}/slack/install`, { redirect: "manual" });
  const cookie = (start.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const authorize = start.headers.get("location") ?? "";
  const allowed = await fetch(authorize, { redirect: "manual" });
  const redirect = allowed.headers.get("location") ?? "";
  const done = await fetch(redirect, { headers: { cookie }, redirect: "manual" });
  const minted = t.emulator.callsTo("oauth.v2.access").at(-1)?.response;
  return {
    start,
    authorize,
    redirect,
    cookie,
    status: done.status,
    page: await done.text(),
    token: String(minted?.access_token ?? ""),
    refreshToken: minted?.refresh_token === undefined ? undefined : String(minted.refresh_token),
  };
}

/** Signed events from `workspace` (another than the emulator's default one), as Slack sends them. */
export function senderFor(t: TestHermes, workspace: Workspace, o: { orgInstall?: boolean } = {}) {
  const emulator: SlackApiEmulator = t.emulator;
  return createEventsSender({
    url: `http://127.0.0.1:${t.hermes.port}/slack/events`,
    signingSecret: SIGNING_SECRET,
    slack: {
      workspace,
      mintResponseUrl: (target) => emulator.mintResponseUrl(target),
      origin: emulator.origin,
    },
    ...(o.orgInstall ? { orgInstall: true } : {}),
  });
}

/** Rows of a statement on the test's database (a short-lived pool). */
export async function queryRows<T extends Record<string, unknown>>(
  t: TestHermes,
  text: string,
): Promise<T[]> {
  const pool = testPool({ connectionString: t.db.url, max: 1 });
  try {
    return (await pool.query<T>(text)).rows;
  } finally {
    await pool.end();
  }
}
