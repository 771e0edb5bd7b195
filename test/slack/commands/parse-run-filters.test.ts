import { describe, expect, it } from "vitest";
import { parseHermesCommand } from "../../../src/slack/commands/parse-hermes-command.ts";
import { parseRunFilters } from "../../../src/slack/commands/parse-run-filters.ts";

const now = new Date("2026-11-29T10:00:00Z");

describe("/hermes run and runs: parsing", () => {
  it("run <id> and runs [filters] are subcommands with their arguments", () => {
    expect(parseHermesCommand("run  3f2a-9c ")).toEqual({ kind: "run", args: "3f2a-9c" });
    expect(parseHermesCommand("RUNS status:failed")).toEqual({ kind: "runs", args: "status:failed" });
    expect(parseHermesCommand("runs")).toEqual({ kind: "runs", args: "" });
  });

  it("reads user mentions or ids, statuses (answered = completed) and since as a duration or date", () => {
    expect(parseRunFilters("user:<@U0USER1|li.ming> status:answered since:24h", now)).toEqual({
      ok: true,
      filters: { user: "U0USER1", status: "completed", since: new Date("2026-11-28T10:00:00Z") },
    });
    expect(parseRunFilters("status:FAILED since:2026-11-01", now)).toEqual({
      ok: true,
      filters: { status: "failed", since: new Date("2026-11-01T00:00:00Z") },
    });
    expect(parseRunFilters("", now)).toEqual({ ok: true, filters: {} });
  });

  it("a user written as a name is handed back to be looked up, quotes removed", () => {
    expect(parseRunFilters("user:@li.ming status:failed", now)).toEqual({
      ok: true,
      filters: { status: "failed" },
      userName: "@li.ming",
    });
    expect(parseRunFilters('user:"Li Ming"', now)).toEqual({ ok: true, filters: {}, userName: "Li Ming" });
  });

  it("a bad filter gets one sentence naming it", () => {
    const error = (text: string) => {
      const r = parseRunFilters(text, now);
      return r.ok ? undefined : r.error;
    };
    expect(error("failed")).toContain("`failed` is not a filter");
    expect(error("tool:x")).toContain("Unknown filter `tool:`");
    expect(error("status:")).toContain("`status:` needs a value, e.g. `status:failed`");
    expect(error("status:done")).toBe(
      "`status:done` is not a run status; use one of answered, running, paused, failed, stopped.",
    );
    expect(error("since:yesterday")).toContain("Bad `since:` filter");
    expect(error("status:failed status:paused")).toContain("given twice");
  });
});
