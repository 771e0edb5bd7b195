import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseProfilesYaml, unknownToolProblems } from "../../src/profiles/profiles-file.ts";
import { blocksText } from "../helpers/bolt-app.ts";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { testPool } from "../helpers/pg.ts";
import { answer, ScriptedModelServer } from "../helpers/scripted-model.ts";
import { botReplies, commandReply, messageText } from "../helpers/slack-thread.ts";

const FILE_TEXT = `
default:
  instructions: Keep answers short.
C0OPS:
  tools: [get_current_time, create_ticket]
  level: viewer
`;

describe("HERMES_PROFILES: the file wins", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  let db: pg.Pool;
  let dir: string;
  let file: string;

  const hermes = (user: string, text: string) => commandReply(t, user, text, "C0OPS");

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "hermes-profiles-"));
    file = join(dir, "profiles.yaml");
    writeFileSync(file, FILE_TEXT);
    await model.start();
    t = await startTestHermes({ model, env: { HERMES_PROFILES: file } });
    db = testPool({ connectionString: t.db.url, max: 2 });
  }, 180_000);
  afterAll(async () => {
    await db?.end();
    await t?.stop();
    await model.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("shows the file's profile and refuses a change through Slack with a sentence naming the file", async () => {
    const shown = await hermes("U0USER1", "profile");
    expect(shown).toContain("*Profile of <#C0OPS>*: its own profile");
    expect(shown).toContain("• Tools: `get_current_time`, `create_ticket`");
    expect(shown).toContain(`These profiles come from the file ${file} (HERMES_PROFILES)`);
    expect(await hermes("U0ADMIN", "profile set tools create_ticket")).toContain(
      `Channel profiles are kept in the file ${file} (HERMES_PROFILES), which wins over Slack: change them there and restart Hermes.`,
    );
    expect(await hermes("U0ADMIN", "profile clear default")).toContain(`kept in the file ${file}`);
    const rows = await db.query("SELECT 1 FROM audit_log WHERE action = 'profile.changed'");
    expect(rows.rows).toEqual([]);
    expect((await db.query("SELECT 1 FROM channel_profiles")).rows).toEqual([]);
  });

  it("App Home shows admins the profiles and the file they come from", async () => {
    expect((await t.sender.appHomeOpened({ user: "U0ADMIN" })).status).toBe(200);
    const view = await waitFor(() => t.ws.getView("U0ADMIN"), 30_000, "App Home");
    const text = blocksText((view as { blocks: unknown[] }).blocks);
    expect(text).toContain("Channel profiles");
    expect(text).toContain("• Default: any tools, adds instructions");
    expect(text).toContain("• <#C0OPS>: tools get_current_time, create_ticket, level viewer");
    expect(text).toContain(`Kept in the file ${file} (HERMES_PROFILES)`);
  });

  it("the file's level and allow-list apply to a run: a viewer there is offered no user-level tool", async () => {
    model.enqueue(answer("Short answer."));
    const d = await t.sender.appMention({ user: "U0USER1", channel: "C0OPS", text: "<@U0HERMES> hi" });
    await waitFor(
      () => botReplies(t, "C0OPS", d.message!.ts).find((m) => messageText(m).includes("Short answer.")),
      30_000,
      "answer",
    );
    const request = model.requests[0]!.body;
    expect((request.tools ?? []).map((x) => x.function.name)).toEqual(["get_current_time"]);
    // C0OPS has its own profile: the default's instructions are not added there.
    expect(request.messages[0]!.content).not.toContain("Keep answers short.");
  });
});

describe("parsing HERMES_PROFILES", () => {
  it("reports every problem at once, naming the file", () => {
    const text =
      "C0OPS:\n  tools: get_current_time\n  level: admin\nops:\n  level: user\nC0X1:\n  colour: red\n";
    expect(() => parseProfilesYaml(text, "/etc/hermes/profiles.yaml")).toThrow(
      /HERMES_PROFILES \/etc\/hermes\/profiles\.yaml is invalid:\n {2}- C0OPS: tools: .*\n {2}- C0OPS: level: .*\n {2}- ops: not a channel id .*\n {2}- C0X1: \(profile\): unknown field colour/,
    );
    expect(() => parseProfilesYaml("- a\n- b\n", "p.yaml")).toThrow("must be a YAML map");
    expect(() => parseProfilesYaml("a: [\n", "p.yaml")).toThrow("not valid YAML");
  });

  it("an empty file means no profiles; unknown tools are named for the start-up warning", () => {
    expect(parseProfilesYaml("", "p.yaml").size).toBe(0);
    const profiles = parseProfilesYaml("default:\n  tools: [get_current_time, get_tme]\n", "p.yaml");
    expect(unknownToolProblems(profiles, new Set(["get_current_time"]))).toEqual([
      "default: tools: no tool is named get_tme",
    ]);
  });
});
