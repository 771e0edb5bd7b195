import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modalsOf } from "../../../src/sandbox/modals.ts";
import { blocksText } from "../../helpers/bolt-app.ts";
import { startTestHermes, type TestHermes, waitFor } from "../../helpers/hermes-harness.ts";
import { testPool } from "../../helpers/pg.ts";

/**
 * With HERMES_PROFILES in force the App Home and the profile modal say the file wins, and a
 * submission is refused with the file's sentence: nothing is stored or audited.
 */
describe("the profile modal while HERMES_PROFILES is in force", () => {
  let t: TestHermes;
  let db: pg.Pool;
  let dir: string;
  let file: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "hermes-profiles-"));
    file = join(dir, "profiles.yaml");
    writeFileSync(
      file,
      "C0OPS:\n  tools: [get_current_time]\n  model: ops-model\n  tokens_per_day: 200000\n  streaming: off\n",
    );
    t = await startTestHermes({ env: { HERMES_PROFILES: file } });
    db = testPool({ connectionString: t.db.url, max: 2 });
  }, 180_000);
  afterAll(async () => {
    await db?.end();
    await t?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the Home and the modal say the file wins, and saving is refused with that sentence", async () => {
    const sentence = `Channel profiles are kept in the file ${file} (HERMES_PROFILES), which wins over Slack: change them there and restart Hermes.`;
    await t.sender.appHomeOpened({ user: "U0ADMIN" });
    const home = await waitFor(() => t.ws.getView("U0ADMIN"), 30_000, "App Home");
    const text = blocksText(home.blocks);
    expect(text).toContain(
      "• <#C0OPS>: tools get_current_time, model ops-model, 200,000 tokens/day, streaming off",
    );
    expect(text).toContain(`Kept in the file ${file} (HERMES_PROFILES), which wins over Slack`);

    await t.sender.homeAction({ user: "U0ADMIN", actionId: "hermes.profile.edit.C0OPS", value: "C0OPS" });
    const modal = await waitFor(() => modalsOf(t.ws).ofUser("U0ADMIN")[0], 30_000, "the modal");
    expect(blocksText(modal.blocks)).toContain(`:lock: ${sentence}`);
    const refused = await t.sender.viewSubmission({
      user: "U0ADMIN",
      viewId: modal.id,
      values: {
        tools_mode: { value: { type: "static_select", selected_option: { value: "any" } } },
        level: { value: { type: "static_select", selected_option: { value: "unset" } } },
        streaming: { value: { type: "static_select", selected_option: { value: "on" } } },
      },
    });
    expect(JSON.parse(refused.body)).toEqual({
      response_action: "errors",
      errors: { instructions: sentence },
    });
    expect((await db.query("SELECT 1 FROM channel_profiles")).rows).toEqual([]);
    expect((await db.query("SELECT 1 FROM audit_log WHERE action = 'profile.changed'")).rows).toEqual([]);
  });
});
