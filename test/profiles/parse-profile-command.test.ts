import { describe, expect, it } from "vitest";
import { parseProfileCommand } from "../../src/slack/commands/parse-profile-command.ts";

describe("/hermes profile arguments", () => {
  it("shows this channel, another one, or the default", () => {
    expect(parseProfileCommand("")).toEqual({
      ok: true,
      command: { kind: "show", target: { kind: "here" } },
    });
    expect(parseProfileCommand("default")).toEqual({
      ok: true,
      command: { kind: "show", target: { kind: "default" } },
    });
    expect(parseProfileCommand("#ops")).toEqual({
      ok: true,
      command: { kind: "show", target: { kind: "named", name: "#ops" } },
    });
    expect(parseProfileCommand("<#C0OPS|ops>")).toEqual({
      ok: true,
      command: { kind: "show", target: { kind: "channel", id: "C0OPS" } },
    });
  });

  it("sets one field; off removes it; instructions keep their spacing", () => {
    expect(parseProfileCommand("set tools get_current_time, search_tickets get_current_time")).toEqual({
      ok: true,
      command: {
        kind: "set",
        target: { kind: "here" },
        change: { field: "tools", value: ["get_current_time", "search_tickets"] },
      },
    });
    expect(parseProfileCommand("set <#C0OPS> tools nothing")).toMatchObject({
      command: { target: { kind: "channel", id: "C0OPS" }, change: { field: "tools", value: [] } },
    });
    expect(parseProfileCommand("set default level off")).toMatchObject({
      command: { target: { kind: "default" }, change: { field: "level", value: null } },
    });
    expect(parseProfileCommand("set instructions Be brief.\n  Sign as Ops.")).toMatchObject({
      command: { change: { field: "instructions", value: "Be brief.\n  Sign as Ops." } },
    });
    expect(parseProfileCommand("clear default")).toEqual({
      ok: true,
      command: { kind: "clear", target: { kind: "default" } },
    });
  });

  it("says what is wrong in a sentence", () => {
    expect(parseProfileCommand("set level admin")).toEqual({
      ok: false,
      error: "`admin` is not a level a channel can give: use viewer or user.",
    });
    expect(parseProfileCommand("set colour red")).toMatchObject({
      ok: false,
      error: expect.stringContaining("`colour` is not a profile field"),
    });
    expect(parseProfileCommand("set tools")).toMatchObject({
      ok: false,
      error: expect.stringContaining("Give a value for tools"),
    });
    expect(parseProfileCommand("frobnicate")).toMatchObject({
      ok: false,
      error: expect.stringContaining("`frobnicate` is not something"),
    });
  });
});
