import { describe, expect, it } from "vitest";
import { parseScheduleCommand } from "../../src/schedules/parse-schedule-command.ts";
import { resolveNamed } from "../../src/slack/commands/resolve-named.ts";
import type { Directory } from "../../src/tools/references/resolve-reference.ts";

// The one workspace look-up every /hermes subcommand uses, over a small directory.
const directory: Directory = {
  loadedUsers: () => ({
    items: [{ id: "U0USER1", name: "li.ming", realName: "Li Ming", isBot: false, deleted: false }],
    complete: true,
  }),
  loadedChannels: () => ({
    items: [
      { id: "C0OPS1234", name: "ops", isPrivate: false },
      { id: "C0ENG9876", name: "eng-alerts", isPrivate: false },
    ],
    complete: true,
  }),
  loadedUserGroups: () => ({ items: [], complete: true }),
  directoryLoads: () => new Promise<void>(() => undefined),
  userById: async (id) =>
    id === "U0USER1" ? { id, name: "li.ming", isBot: false, deleted: false } : undefined,
  channelById: async (id) =>
    ["C0OPS1234", "C0ENG9876"].includes(id) ? { id, name: id, isPrivate: false } : undefined,
};
const resolveChannel = async (written: string) => {
  const named = await resolveNamed(directory, written, "channel", "/hermes schedule add …");
  return named.ok ? { ok: true as const, id: named.resolved.id } : named;
};

async function command(text: string, options = {}) {
  const parsed = await parseScheduleCommand(text, { resolveChannel, ...options });
  if (!parsed.ok) throw new Error(`expected a command, got: ${parsed.error}`);
  return parsed.command;
}

async function error(text: string, options = {}) {
  const parsed = await parseScheduleCommand(text, { resolveChannel, ...options });
  if (parsed.ok) throw new Error(`expected an error, got ${JSON.stringify(parsed.command)}`);
  expect(parsed.error).toContain("/hermes schedule add"); // every error carries the usage
  return parsed.error.split("\n")[0];
}

describe("parseScheduleCommand", () => {
  it("parses add with a linked channel, a #name, or an id", async () => {
    expect(
      await command('schedule add "0 9 * * 1-5" <#C0OPS1234|ops> "summarize urgent open tickets"'),
    ).toEqual({
      kind: "add",
      cron: "0 9 * * 1-5",
      timezone: "UTC",
      channelId: "C0OPS1234",
      prompt: "summarize urgent open tickets",
    });
    expect(await command('add "30 8 * * *" #eng-alerts "overnight alerts"')).toMatchObject({
      channelId: "C0ENG9876",
    });
    expect(await command('add "@daily" C0123ABCD "daily digest"')).toMatchObject({
      cron: "@daily",
      channelId: "C0123ABCD",
    });
  });

  it("takes the channel in every form a person types or Slack sends", async () => {
    for (const written of ["#ops", "ops", "<#C0OPS1234|ops>", "<#C0OPS1234>", "C0OPS1234", "#OPS"]) {
      expect(await command(`add "0 9 * * 1-5" ${written} "x"`)).toMatchObject({ channelId: "C0OPS1234" });
    }
  });

  it("takes tz=, curly quotes, quotes inside the prompt and Slack's escapes", async () => {
    expect(
      await command(
        'schedule add “0  9 * * MON” #ops “list tickets tagged "p1" &amp; &lt;urgent&gt;” tz=Europe/Berlin',
      ),
    ).toEqual({
      kind: "add",
      cron: "0 9 * * MON",
      timezone: "Europe/Berlin",
      channelId: "C0OPS1234",
      prompt: 'list tickets tagged "p1" & <urgent>',
    });
    expect(await command('add "0 9 * * *" #ops "x"', { defaultTimezone: "Asia/Shanghai" })).toMatchObject({
      timezone: "Asia/Shanghai",
    });
  });

  it("parses list, remove and help", async () => {
    expect(await command("schedule list")).toEqual({ kind: "list" });
    expect(await command("remove 12")).toEqual({ kind: "remove", id: 12 });
    expect(await command("schedule rm #7")).toEqual({ kind: "remove", id: 7 });
    expect(await command("schedule")).toMatchObject({ kind: "help" });
  });

  it("explains what is wrong", async () => {
    expect(await error('add "0 25 * * *" #ops "x"')).toBe(
      '"0 25 * * *" is not a valid cron pattern: Invalid value for hour: 25.',
    );
    expect(await error('add "every monday" #ops "x"')).toMatch(/needs 5 fields/);
    expect(await error('add "* * * * * *" #ops "x"')).toMatch(/needs 5 fields.*at most once a minute/);
    expect(await error('add 0 9 * * 1-5 #ops "x"')).toBe(
      'Put the cron pattern in quotes, e.g. `"0 9 * * 1-5"`.',
    );
    expect(await error('add "0 9 * * 1-5 #ops "x"')).toMatch(/^"0 9 \* \* 1-5 #ops" needs 5 fields/);
    expect(await error('add "0 9 * * 1-5" #ops summarize tickets')).toBe(
      'Put the prompt in quotes, e.g. `"summarize urgent open tickets"`.',
    );
    expect(await error('add "0 9 * * 1-5" #ops')).toMatch(/^Add the prompt in quotes/);
    expect(await error('add "0 9 * * 1-5"')).toMatch(/^Name the channel/);
    expect(await error('add "0 9 * * 1-5" #nowhere "x"')).toBe(
      "No channel named #nowhere. Check the spelling, or pick the channel from the # menu. For example: `/hermes schedule add …`.",
    );
    expect(await error('add "0 9 * * 1-5" #opss "x"')).toMatch(
      /^No channel named #opss\. Did you mean #ops\?/,
    );
    expect(await error('add "0 9 * * 1-5" @li.ming "x"')).toMatch(
      /is a person; this needs a channel, e.g. #general/,
    );
    expect(await error('add "0 9 * * 1-5" #ops "x" tz=Mars/Olympus')).toMatch(/not a time zone/);
    expect(await error("remove abc")).toMatch(/schedule remove 3/);
    expect(await error("list all")).toMatch(/takes no arguments/);
    expect(await error("pause 3")).toBe("I don't know `schedule pause`.");
  });
});
