import { describe, expect, it } from "vitest";
import { decodeAuditState, encodeAuditState } from "../../../src/slack/commands/audit-page-state.ts";
import { parseAuditFilters } from "../../../src/slack/commands/parse-audit-filters.ts";
import { parseHermesCommand } from "../../../src/slack/commands/parse-hermes-command.ts";
import { encodeAuditCursor } from "../../../src/store/audit-query.ts";

const now = new Date("2026-11-29T10:00:00Z");

describe("parseHermesCommand", () => {
  it("names the subcommand; empty is help; anything else is unknown", () => {
    expect(parseHermesCommand("")).toEqual({ kind: "help" });
    expect(parseHermesCommand("  Tools ")).toEqual({ kind: "tools" });
    expect(parseHermesCommand("whoami")).toEqual({ kind: "whoami" });
    expect(parseHermesCommand("approvals")).toEqual({ kind: "approvals" });
    expect(parseHermesCommand("audit  tool:x since:1h")).toEqual({ kind: "audit", args: "tool:x since:1h" });
    expect(parseHermesCommand('schedule add "0 9 * * *"')).toEqual({
      kind: "schedule",
      text: 'schedule add "0 9 * * *"',
    });
    expect(parseHermesCommand("constructor")).toEqual({ kind: "unknown", word: "constructor" });
  });
});

describe("parseAuditFilters", () => {
  it("reads mentions, ids, tools, short and long actions, durations and dates (UTC)", () => {
    expect(
      parseAuditFilters(
        "user:<@U0USER1|li.ming> tool:send_message action:approved action:tool.rejected,failed since:24h until:2026-11-29",
        now,
      ),
    ).toEqual({
      ok: true,
      filters: {
        user: "U0USER1",
        tool: "send_message",
        action: ["tool.approved", "tool.rejected", "tool.failed"],
        since: "2026-11-28T10:00:00.000Z",
        until: "2026-11-29T00:00:00.000Z",
      },
    });
    expect(parseAuditFilters("user:U0ADMIN since:2026-11-01T09:00Z", now)).toEqual({
      ok: true,
      filters: { user: "U0ADMIN", since: "2026-11-01T09:00:00.000Z" },
    });
    expect(parseAuditFilters("user:<@U0USER1|Li Ming>", now)).toMatchObject({ filters: { user: "U0USER1" } });
    expect(parseAuditFilters("", now)).toEqual({ ok: true, filters: {} });
    // channel: an encoded reference or a bare id is an id; a #name is left for the caller to look up.
    expect(parseAuditFilters("channel:<#C0OPS|ops> user:U0USER1", now)).toEqual({
      ok: true,
      filters: { channel: "C0OPS", user: "U0USER1" },
    });
    expect(parseAuditFilters("channel:D0USER1", now)).toEqual({ ok: true, filters: { channel: "D0USER1" } });
    expect(parseAuditFilters('channel:#ops user:"Li Ming"', now)).toEqual({
      ok: true,
      filters: {},
      userName: "Li Ming",
      channelName: "#ops",
    });
  });

  it("names the bad filter in one line", () => {
    const error = (text: string) => {
      const parsed = parseAuditFilters(text, now);
      if (parsed.ok) throw new Error(`expected ${text} to fail`);
      expect(parsed.error.split("\n")).toHaveLength(1);
      return parsed.error;
    };
    expect(error("tool:a tool:b")).toBe("`tool:` is given twice; give it once.");
    expect(error("tool:")).toContain("`tool:` needs a value");
    expect(error("tool:rm -rf")).toContain("`-rf` is not a filter");
    expect(error("until:soon")).toContain("Bad `until:` filter");
  });
});

describe("audit page state (button values)", () => {
  it("round-trips filters, cursor and page, compactly", () => {
    const cursor = encodeAuditCursor({ createdAt: "2026-11-29T10:00:00.123456Z", id: 42 });
    const state = {
      filters: {
        user: "U0USER1",
        tool: "send_message",
        action: ["tool.approved" as const],
        since: "2026-11-28T10:00:00.000Z",
        channel: "C0OPS",
      },
      cursor,
      page: 3,
    };
    const value = encodeAuditState(state);
    expect(value.length).toBeLessThan(300);
    expect(decodeAuditState(value)).toEqual(state);
  });

  it("refuses tampered values with a sentence a user can act on", () => {
    for (const bad of ["nope", "{}", '{"p":1,"x":1}', '{"p":1,"c":"garbage"}', '{"p":1,"a":["tool.boom"]}']) {
      expect(() => decodeAuditState(bad)).toThrow("That audit button is out of date");
    }
  });
});
