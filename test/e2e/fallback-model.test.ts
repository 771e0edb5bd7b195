import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { execSql } from "../helpers/pg.ts";
import { answer, assistantMessage, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";
import { botReplies } from "../helpers/slack-thread.ts";

/**
 * HERMES_FALLBACK_MODEL in the running app: a primary that twice writes a call nothing can read hands
 * the run to the fallback model; the switch shows in the progress message, the answer comes from the
 * fallback, and the run's stored record says which model took over and why. Without a fallback the
 * user reads one clear sentence and no markup.
 */
describe("the fallback model, end to end (Slack emulator, real HTTP, Postgres)", () => {
  const primary = new ScriptedModelServer();
  const backup = new ScriptedModelServer();
  let t: TestHermes;
  beforeAll(async () => {
    await primary.start();
    await backup.start();
    t = await startTestHermes({
      model: primary,
      env: { HERMES_FALLBACK_MODEL: "backup-model", HERMES_FALLBACK_BASE_URL: backup.baseURL },
    });
  }, 120_000);
  afterAll(async () => {
    await t?.stop();
    await primary.stop();
    await backup.stop();
  });

  it("unreadable calls twice: the fallback answers, the switch is shown and kept with the run", async () => {
    const unreadable = assistantMessage({
      content: "<tool_call>create_ticket --title 'VPN down'</tool_call>",
    });
    primary.enqueue(unreadable, unreadable);
    backup.enqueue(toolCalls([{ name: "get_current_time", args: {} }]), answer("Backup: it is noon."));
    const d = await t.sender.appMention({
      user: "U0USER1",
      channel: "C0OPS",
      text: "<@U0HERMES> what time is it?",
    });
    const ts = d.message!.ts;
    const final = await waitFor(
      () => botReplies(t, "C0OPS", ts).find((m) => m.text.includes("Backup: it is noon.")),
      60_000,
      "the fallback model's answer",
    );
    expect(final.text).not.toContain("<tool_call>");
    expect(final.text).toContain(
      "_Answered with the fallback model `backup-model`: the primary model wrote tool calls Hermes could not read._",
    );
    expect(primary.requests).toHaveLength(2);
    expect(backup.requests.map((r) => r.body.model)).toEqual(["backup-model", "backup-model"]);
    // The thread announced the switch: a progress update (when the turn lasted past its first
    // interval) or the answer, posted as a new reply, named the fallback model.
    const updates = [...t.emulator.callsTo("chat.update"), ...t.emulator.callsTo("chat.postMessage")]
      .filter((c) => c.args.thread_ts === ts || c.args.ts !== undefined)
      .map((c) => String((c.args as { text?: unknown }).text ?? ""));
    expect(updates.some((text) => text.includes("fallback model `backup-model`"))).toBe(true);
    const runs = await waitFor(
      async () => {
        const rows = await execSql<{ snapshot: { fallback?: Record<string, unknown> } }>(
          t.hermes.services.storage.db.db,
          "SELECT snapshot FROM runs WHERE snapshot->'fallback' IS NOT NULL",
        );
        return rows.length > 0 ? rows : undefined;
      },
      30_000,
      "the run record with its fallback",
    );
    expect(runs[0]!.snapshot.fallback).toMatchObject({
      model: "backup-model",
      from: "scripted+commands", // the configured model behind command mode
      reason: "unreadable_output",
    });
  });
});
