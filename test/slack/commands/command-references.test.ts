import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEMO } from "../../../src/sandbox/seed-demo-workspace.ts";
import { registerHermesCommand } from "../../../src/slack/commands/hermes-command.ts";
import { type BudgetStore, createBudgetStore } from "../../../src/store/budget-store.ts";
import { type BoltHarness, blocksText, eventually, startBoltHarness } from "../../helpers/bolt-app.ts";

/**
 * Every `/hermes` subcommand that takes a channel or a person takes it in every form a person types
 * or Slack sends with `should_escape: true` (manifest.yml), through the one workspace look-up. The
 * app is registered exactly as boot does (no resolver of its own passed in).
 */
let h: BoltHarness;
let budgets: BudgetStore | undefined;

beforeAll(async () => {
  h = await startBoltHarness((app, services, schedules) =>
    registerHermesCommand(
      app,
      {
        ...services,
        get budgets() {
          return budgets;
        },
      },
      { schedules, onSchedulesChanged: () => {} },
    ),
  );
  budgets = createBudgetStore({
    db: h.store.handle.db,
    defaults: { userTokensPerDay: 0, channelTokensPerDay: 0 },
    audit: h.services.storage.audit,
  });
}, 60_000);

afterAll(() => h?.stop());

beforeEach(() => h.emulator.clearCalls());

async function hermes(user: string, text: string, channel: string = DEMO.general): Promise<string> {
  const before = h.emulator.workspace.ephemeralMessages(channel, user).length;
  const delivery = await h.sender.slashCommand({ user, channel, text });
  expect(delivery.status).toBe(200);
  const message = await eventually(() => h.emulator.workspace.ephemeralMessages(channel, user)[before]);
  return `${message.text}\n${blocksText(message.blocks)}`;
}

const CHANNEL_FORMS = ["#ops", "ops", "<#C0OPS|ops>", "<#C0OPS>", "C0OPS", "#OPS"];
const PERSON_FORMS = ["@li.ming", "li.ming", "<@U0USER1>", "<@U0USER1|li.ming>", "U0USER1", '"Li Ming"'];

describe("channels and people in /hermes subcommands", () => {
  it("schedule add takes #ops exactly as the README and help write it, and every other channel form", async () => {
    const answer = await hermes(
      DEMO.admin,
      'schedule add "0 9 * * 1-5" #ops "summarize urgent open tickets"',
    );
    expect(answer).toMatch(/^Added schedule \*\d+\*/);
    for (const written of CHANNEL_FORMS.slice(1)) {
      expect(await hermes(DEMO.admin, `schedule add "0 9 * * 1-5" ${written} "x"`)).toMatch(
        /^Added schedule/,
      );
    }
    const added = await h.schedules.list();
    expect(added.map((s) => s.channelId)).toEqual(CHANNEL_FORMS.map(() => DEMO.ops));
    for (const s of added) await h.schedules.remove(s.id);
  });

  it("schedule add: a channel that does not resolve gets a sentence with an example; nothing is added", async () => {
    const answer = await hermes(DEMO.admin, 'schedule add "0 9 * * 1-5" #opps "x"');
    expect(answer.split("\n")[0]).toBe(
      'No channel named #opps. Did you mean #ops? For example: `/hermes schedule add "0 9 * * 1-5" #ops "summarize urgent open tickets"`.',
    );
    const person = await hermes(DEMO.admin, 'schedule add "0 9 * * 1-5" @li.ming "x"');
    expect(person.split("\n")[0]).toMatch(/^@li\.ming is a person; this needs a channel, e\.g\. #general\./);
    expect(await h.schedules.list()).toEqual([]);
  });

  it("budget takes every channel and person form", async () => {
    for (const written of CHANNEL_FORMS) {
      expect(await hermes(DEMO.admin, `budget ${written} 1m`)).toContain(
        "<#C0OPS>'s daily token budget is now 1,000,000 tokens a day.",
      );
    }
    for (const written of [...PERSON_FORMS, "Li Ming"]) {
      expect(await hermes(DEMO.admin, `budget ${written} 200k`)).toContain(
        "<@U0USER1>'s daily token budget is now 200,000 tokens a day.",
      );
    }
    const unknown = await hermes(DEMO.admin, "budget #nowhere 1m");
    expect(unknown).toContain(
      "No channel named #nowhere. Check the spelling, or pick the channel from the # menu. For example: `/hermes budget @li.ming 200k` or `/hermes budget #ops 1m`.",
    );
  });

  it("audit user: and channel: take every form", async () => {
    for (const written of CHANNEL_FORMS) {
      const answer = await hermes(DEMO.admin, `audit channel:${written}`);
      expect(answer).not.toContain(":warning:");
    }
    for (const written of PERSON_FORMS) {
      const answer = await hermes(DEMO.admin, `audit user:${written}`);
      expect(answer).not.toContain(":warning:");
    }
    const { rows } = await h.services.storage.audit.query({ action: "audit.queried", limit: 50 });
    const read = rows.map((r) => r.args as { channel?: string; user?: string });
    expect(read.filter((a) => a.channel === DEMO.ops)).toHaveLength(CHANNEL_FORMS.length);
    expect(read.filter((a) => a.user === DEMO.user)).toHaveLength(PERSON_FORMS.length);
    expect((await hermes(DEMO.admin, "audit channel:nowhere")).split("\n")[0]).toBe(
      ":warning: `channel:` No channel named #nowhere. Check the spelling, or pick the channel from the # menu. For example: `/hermes audit channel:#ops`.",
    );
  });

  it("runs user: takes every person form", async () => {
    for (const written of PERSON_FORMS) {
      expect(await hermes(DEMO.admin, `runs user:${written}`)).toContain("Filters: user <@U0USER1>");
    }
    expect((await hermes(DEMO.admin, "runs user:@nobody.here")).split("\n")[0]).toBe(
      ":warning: `user:` No one named @nobody.here is in this workspace. Check the spelling, or pick them from the @ menu. For example: `/hermes runs user:@li.ming`.",
    );
  });

  it("budget refuses an amount that is not unambiguous, with the reason and an example; nothing changes", async () => {
    expect(await hermes(DEMO.admin, "budget #general 300k")).toContain(
      "<#C0GENERAL>'s daily token budget is now 300,000",
    );
    const cases: Array<[string, string]> = [
      [
        "0.4",
        "`0.4` is not a token count: it is not a whole number of tokens: write a whole count, e.g. 400000, 400k or 0.4m.",
      ],
      [
        "1,5m",
        "`1,5m` is not a token count: a comma could be a decimal point or a thousands separator: write 1.5m, 1500000 or 1_500_000.",
      ],
      ["1,500", "`1,500` is not a token count: a comma could be a decimal point or a thousands separator"],
      ["-5", "`-5` is not a token count: a token amount has no sign: write 0 or more, e.g. 200k."],
      ["1e6", "`1e6` is not a token count: write 1m or 1000000 instead of scientific notation."],
      ["1.2345k", "`1.2345k` is not a token count: it is not a whole number of tokens"],
    ];
    for (const [amount, sentence] of cases) {
      const answer = await hermes(DEMO.admin, `budget #general ${amount}`);
      expect(answer, amount).toContain(`:warning: ${sentence}`);
      expect(answer, amount).toContain("Write `/hermes budget @user 200k`");
    }
    // The demo workspace's limit of the channel (limits are per team).
    expect(await budgets!.limit("channel", DEMO.general, DEMO.team)).toMatchObject({ tokensPerDay: 300_000 });
    expect(await hermes(DEMO.admin, "budget #general 200_000")).toContain("is now 200,000 tokens a day.");
    expect(await hermes(DEMO.admin, "budget #general 0")).toContain(
      "<#C0GENERAL>'s daily token budget is now no limit.",
    );
  });
});
