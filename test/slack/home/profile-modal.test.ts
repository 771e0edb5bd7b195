import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modalsOf, type SandboxModal } from "../../../src/sandbox/modals.ts";
import { blocksText } from "../../helpers/bolt-app.ts";
import { startTestHermes, type TestHermes, waitFor } from "../../helpers/hermes-harness.ts";
import { testPool } from "../../helpers/pg.ts";
import { answer, ScriptedModelServer } from "../../helpers/scripted-model.ts";
import { botReplies, messageText } from "../../helpers/slack-thread.ts";

/** What a person entered, in the shape a view submission carries (`values[block_id].value`). */
const values = (v: Record<string, Record<string, unknown>>) =>
  Object.fromEntries(Object.entries(v).map(([block, value]) => [block, { value }]));
const picked = (value: string) => ({ type: "static_select", selected_option: { value } });

/**
 * Editing channel profiles in the App Home: the Edit / New buttons open the profile modal through
 * `views.open` (the emulator takes the click's trigger id once), a submission is checked (errors on
 * their fields, `response_action: "errors"`), saved, audited with before and after, and the Home is
 * published again; the next run in the channel uses what was saved.
 */
describe("the profile modal in the App Home", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  let db: pg.Pool;

  /** The admin's Home, once it shows `expected`. */
  async function homeShowing(user: string, expected: string): Promise<string> {
    return waitFor(
      () => {
        const view = t.ws.getView(user);
        const text = view ? blocksText(view.blocks) : "";
        return text.includes(expected) ? text : undefined;
      },
      30_000,
      `App Home showing ${expected}`,
    );
  }

  /** Clicks a Home button and waits for the modal it opens. */
  async function openModal(user: string, actionId: string, value?: string): Promise<SandboxModal> {
    const before = modalsOf(t.ws).ofUser(user).length;
    const d = await t.sender.homeAction({ user, actionId, ...(value ? { value } : {}) });
    expect(d.status).toBe(200);
    return waitFor(() => modalsOf(t.ws).ofUser(user)[before], 30_000, "the profile modal");
  }

  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({ model });
    db = testPool({ connectionString: t.db.url, max: 2 });
  }, 180_000);
  afterAll(async () => {
    await db?.end();
    await t?.stop();
    await model.stop();
  });

  it("New channel profile: an invalid submission gets field errors, a valid one saves, audits and refreshes the Home", async () => {
    expect((await t.sender.appHomeOpened({ user: "U0ADMIN" })).status).toBe(200);
    await homeShowing("U0ADMIN", "No channel has a profile");
    const modal = await openModal("U0ADMIN", "hermes.profile.new");
    expect(blocksText(modal.blocks)).toContain("Allowed tools");
    // Members see no profile buttons at all.
    await t.sender.appHomeOpened({ user: "U0USER1" });
    const memberHome = await waitFor(() => t.ws.getView("U0USER1"), 30_000, "member's Home");
    expect(JSON.stringify(memberHome.blocks)).not.toContain("hermes.profile");

    const bad = await t.sender.viewSubmission({
      user: "U0ADMIN",
      viewId: modal.id,
      values: values({
        channel: { type: "conversations_select", selected_conversation: null },
        tools_mode: picked("listed"),
        tools: { type: "multi_static_select", selected_options: [{ value: "get_current_time" }] },
        level: picked("unset"),
        model: { type: "plain_text_input", value: "two words" },
        streaming: picked("unset"),
        tokens_per_day: { type: "number_input", value: "1.5" },
      }),
    });
    expect(bad.status).toBe(200);
    const refused = JSON.parse(bad.body) as { response_action: string; errors: Record<string, string> };
    expect(refused.response_action).toBe("errors");
    expect(refused.errors).toEqual({
      channel: "Choose the channel this profile is for.",
      model: "`two words` is not a model name: model names have no spaces.",
      tokens_per_day: "Write a whole number of tokens, 0 or more (0: no limit).",
    });
    expect(modalsOf(t.ws).get(modal.id)).toBeDefined(); // kept open for the fixes
    expect((await db.query("SELECT 1 FROM channel_profiles")).rows).toEqual([]);

    const good = await t.sender.viewSubmission({
      user: "U0ADMIN",
      viewId: modal.id,
      values: values({
        channel: { type: "conversations_select", selected_conversation: "C0OPS" },
        instructions: { type: "plain_text_input", value: "Answer as the ops desk." },
        tools_mode: picked("listed"),
        tools: { type: "multi_static_select", selected_options: [{ value: "get_current_time" }] },
        level: picked("viewer"),
        model: { type: "plain_text_input", value: "ops-model" },
        fallback_model: { type: "plain_text_input", value: null },
        streaming: picked("off"),
        tokens_per_day: { type: "number_input", value: "500000" },
      }),
    });
    expect(good.status).toBe(200);
    expect(good.body).toBe("");
    expect(modalsOf(t.ws).get(modal.id)).toBeUndefined();
    const audit = await db.query<{ user_id: string; channel_id: string; args: unknown }>(
      "SELECT user_id, channel_id, args FROM audit_log WHERE action = 'profile.changed'",
    );
    expect(audit.rows).toEqual([
      {
        user_id: "U0ADMIN",
        channel_id: "C0OPS",
        args: {
          channel: "C0OPS",
          before: null,
          after: {
            instructions: "Answer as the ops desk.",
            tools: ["get_current_time"],
            level: "viewer",
            model: "ops-model",
            fallback_model: null,
            tokens_per_day: 500000,
            streaming: "off",
          },
        },
      },
    ]);
    const home = await homeShowing("U0ADMIN", "<#C0OPS>: tools get_current_time");
    expect(home).toContain(
      "• <#C0OPS>: tools get_current_time, level viewer, model ops-model, 500,000 tokens/day, streaming off, adds instructions",
    );
    expect(home).toContain("Edit #ops");

    // The next run in the channel uses what was saved.
    model.enqueue(answer("Ops desk here."));
    const d = await t.sender.appMention({ user: "U0USER1", channel: "C0OPS", text: "<@U0HERMES> hi" });
    await waitFor(
      () => botReplies(t, "C0OPS", d.message!.ts).find((m) => messageText(m).includes("Ops desk here.")),
      30_000,
      "the answer in #ops",
    );
    const request = model.requests[0]!.body;
    expect(request.model).toBe("ops-model");
    expect(request.messages[0]!.content).toContain("Answer as the ops desk.");
    expect((request.tools ?? []).map((x) => x.function.name)).toEqual(["get_current_time"]);
  });

  it("Edit: the modal shows the profile; a change is audited with before and after; a new one for the same channel is refused", async () => {
    const modal = await openModal("U0ADMIN", "hermes.profile.edit.C0OPS", "C0OPS");
    const shown = JSON.stringify(modal.blocks);
    expect(shown).toContain('"initial_value":"ops-model"');
    expect(shown).toContain('"initial_value":"500000"');
    expect(blocksText(modal.blocks)).toContain("*Profile of <#C0OPS>*");
    const saved = await t.sender.viewSubmission({
      user: "U0ADMIN",
      viewId: modal.id,
      values: values({
        instructions: { type: "plain_text_input", value: null },
        tools_mode: picked("any"),
        tools: { type: "multi_static_select", selected_options: [] },
        level: picked("unset"),
        model: { type: "plain_text_input", value: null },
        fallback_model: { type: "plain_text_input", value: null },
        streaming: picked("on"),
        tokens_per_day: { type: "number_input", value: null },
      }),
    });
    expect(saved.body).toBe("");
    // The same signed submission sent again is acked and dropped: no second change, no second row.
    const changes = async () =>
      (await db.query("SELECT 1 FROM audit_log WHERE action = 'profile.changed'")).rows.length;
    const before = await changes();
    expect((await t.sender.redeliver(saved, {})).status).toBe(200);
    expect(await changes()).toBe(before);
    const last = await db.query<{ args: { before: unknown; after: unknown } }>(
      "SELECT args FROM audit_log WHERE action = 'profile.changed' ORDER BY id DESC LIMIT 1",
    );
    expect(last.rows[0]!.args.before).toMatchObject({ model: "ops-model", streaming: "off" });
    expect(last.rows[0]!.args.after).toEqual({
      instructions: null,
      tools: null,
      level: null,
      model: null,
      fallback_model: null,
      tokens_per_day: null,
      streaming: "on",
    });
    await homeShowing("U0ADMIN", "<#C0OPS>: any tools, streaming on");
    // streaming on wins over HERMES_STREAMING=off (the harness's): the model is asked for a stream.
    model.reset();
    model.enqueue(answer("Streamed in ops."));
    const d = await t.sender.appMention({ user: "U0USER1", channel: "C0OPS", text: "<@U0HERMES> hi" });
    await waitFor(
      () => botReplies(t, "C0OPS", d.message!.ts).find((m) => messageText(m).includes("Streamed in ops.")),
      30_000,
      "the streamed answer in #ops",
    );
    expect(model.requests[0]!.body.stream).toBe(true);
    expect(model.requests[0]!.body.model).toBe("scripted");

    const again = await openModal("U0ADMIN", "hermes.profile.new");
    const refused = await t.sender.viewSubmission({
      user: "U0ADMIN",
      viewId: again.id,
      values: values({
        channel: { type: "conversations_select", selected_conversation: "C0OPS" },
        tools_mode: picked("any"),
        level: picked("unset"),
        streaming: picked("unset"),
      }),
    });
    expect(JSON.parse(refused.body)).toEqual({
      response_action: "errors",
      errors: { channel: "That channel already has a profile: use its Edit button in the App Home." },
    });
  });
});
