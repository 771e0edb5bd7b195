import { describe, expect, it } from "vitest";
import { bareToolName, resolveToolName } from "../../src/tools/tool-names.ts";
import { type Execution, fixtureTools, testRegistry } from "../helpers/runtime.ts";
import { threadCpuMs } from "../security/adversarial-strings.ts";

const call = (name: string, args = "{}") => ({ id: "call_1", name, arguments: args });

describe("tool names as models write them", () => {
  it.each([
    ["functions.create_ticket", "create_ticket"],
    ["tools.create_ticket", "create_ticket"],
    ["default_api.create_ticket", "create_ticket"],
    ["mcp__tickets__create_ticket", "create_ticket"],
    ["functions.create_ticket:0", "create_ticket"],
    ["create_ticket:12", "create_ticket"],
    ["create_ticket<|channel|>commentary", "create_ticket"],
    ["functions.create_ticket <|constrain|>json", "create_ticket"],
    ["get_weather json", "get_weather"],
    ["`create_ticket`", "create_ticket"],
    ['"create_ticket"', "create_ticket"],
    ["create_ticket</tool_call>", "create_ticket"],
    ["create_ticket", "create_ticket"],
  ])("%s → %s", (written, bare) => {
    expect(bareToolName(written)).toBe(bare);
  });

  it("matches case-, hyphen- and underscore-insensitively, onto one tool only", () => {
    const names = ["create_ticket", "search_tickets", "get_current_time"];
    expect(resolveToolName("create_ticket", names)).toEqual({ kind: "exact", name: "create_ticket" });
    expect(resolveToolName("Create-Ticket", names)).toEqual({ kind: "normalized", name: "create_ticket" });
    expect(resolveToolName("createTicket", names)).toEqual({ kind: "normalized", name: "create_ticket" });
    expect(resolveToolName("functions.SearchTickets:3", names)).toEqual({
      kind: "normalized",
      name: "search_tickets",
    });
    expect(resolveToolName("delete_ticket", names)).toEqual({ kind: "none" });
    expect(resolveToolName("create_tickets", names)).toEqual({ kind: "none" });
    expect(resolveToolName("create-ticket", ["create_ticket", "createTicket"])).toEqual({
      kind: "ambiguous",
      candidates: ["createTicket", "create_ticket"],
    });
  });

  it("stays linear on a hostile name", () => {
    const started = threadCpuMs();
    bareToolName(`${"a.".repeat(200_000)}<|${":".repeat(100_000)}`);
    resolveToolName("x".repeat(500_000), ["create_ticket"]);
    expect(threadCpuMs() - started).toBeLessThan(2000);
  });
});

describe("the registry resolves a written name onto a tool the requester may call", () => {
  const executions: Execution[] = [];
  const { registry } = testRegistry(fixtureTools(executions));

  it("runs a prefixed name as the tool, and says it repaired the name", () => {
    const p = registry.prepare(call("functions.create_ticket:0", '{"title":"VPN"}'));
    expect(p.ok).toBe(true);
    expect(p.call.name).toBe("create_ticket");
    expect(p.repairs).toContain("tool_name_normalized");
  });

  it("maps only onto allowed tools: a normalized name of a forbidden tool is not permitted, not unknown", () => {
    const allowed = new Set(["search_tickets", "get_current_time"]);
    const p = registry.prepare(call("default_api.Create-Ticket", '{"title":"x"}'), allowed);
    expect(p.ok).toBe(false);
    if (p.ok) return;
    expect(p.kind).toBe("not_permitted");
    expect(p.call.name).toBe("create_ticket");
  });

  it("an ambiguous name is unknown, and the model is told the valid names", () => {
    const twin = fixtureTools(executions)[0]!;
    const { registry: r } = testRegistry([...fixtureTools(executions), { ...twin, name: "createTicket" }]);
    const p = r.prepare(call("Create-Ticket"));
    expect(p.ok).toBe(false);
    if (p.ok) return;
    expect(p.kind).toBe("unknown_tool");
    expect(p.error).toContain("could mean createTicket or create_ticket");
    expect(p.error).toContain("The tools you can call are: createTicket, create_ticket, get_current_time");
  });

  it("an unknown name lists only what the requester may call", () => {
    const p = registry.prepare(call("functions.delete_everything"), new Set(["get_current_time"]));
    expect(p.ok).toBe(false);
    if (p.ok) return;
    expect(p.kind).toBe("unknown_tool");
    expect(p.error).toContain("The tools you can call are: get_current_time.");
  });
});
