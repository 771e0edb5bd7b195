import { describe, expect, it } from "vitest";
import { z } from "zod";
import { commandReply } from "../../../src/agent/command/command-reply.ts";
import {
  AUDIT_UNAVAILABLE_RESULT,
  DENIED_RESULT,
  EXPIRED_RESULT,
  REJECTED_RESULT,
  UNRESOLVED_RESULT,
} from "../../../src/agent/run/stop-messages.ts";
import { silentLogger } from "../../../src/core/logger.ts";
import { defineTool } from "../../../src/tools/define-tool.ts";
import { ToolRegistry } from "../../../src/tools/registry.ts";
import { createMemoryResultStore } from "../../../src/tools/result-store.ts";

/** The runtime's own texts, produced by the real registry, turned into sentences for a person. */
const registry = new ToolRegistry({ results: createMemoryResultStore(), logger: silentLogger() });
registry.register(
  defineTool({
    name: "send_message",
    description: "Send a message.",
    approval: "always",
    input: z.object({ to: z.string(), text: z.string().min(1).max(3000) }),
    examples: [{ to: "#general", text: "hello" }],
    execute: () => "sent",
  }),
  defineTool({
    name: "create_ticket",
    description: "Open a ticket.",
    input: z.object({ title: z.string(), priority: z.enum(["low", "medium", "high"]).optional() }),
    execute: () => "ok",
  }),
);
const spec = (name: string) => registry.specs().find((s) => s.name === name);
const errorOf = (name: string, args: unknown) => {
  const prepared = registry.prepare({ id: "c1", name, arguments: JSON.stringify(args) });
  if (prepared.ok) throw new Error("expected a refusal");
  return prepared.error;
};

describe("command mode answers in plain sentences", () => {
  it("a missing field names the field and shows a command that works", () => {
    const content = errorOf("send_message", { to: "#general" });
    expect(content).toContain("call send_message again"); // what the model reads
    expect(commandReply("send_message", content, spec("send_message"))).toBe(
      "`send_message` needs a `text`.\nTry: `run send_message to=#general text=hello`",
    );
    expect(commandReply("send_message", errorOf("send_message", {}), spec("send_message"))).toBe(
      "`send_message` needs `to` and `text`.\nTry: `run send_message to=#general text=hello`",
    );
  });

  it("a wrong value says what is allowed", () => {
    // No spec given: no Try line.
    const reply = commandReply("create_ticket", errorOf("create_ticket", { title: "x", priority: "asap" }));
    expect(reply).toBe("For `create_ticket`, `priority` must be one of low, medium, high.");
  });

  it("an unknown tool points at help, with the likely name", () => {
    expect(commandReply("create_tickets", errorOf("create_tickets", {}))).toBe(
      "There is no tool called `create_tickets`. Did you mean `create_ticket`? Send `help` for the tools you may use.",
    );
  });

  it("denials, rejections, expiry and an unavailable audit log say what happened and what to do", () => {
    expect(commandReply("send_message", DENIED_RESULT("<@U0USER1> is not a member of <#C0OPS>"))).toBe(
      "`send_message` was not run: <@U0USER1> is not a member of <#C0OPS>. Join that channel first, or send it to a channel you are in.",
    );
    expect(
      commandReply("delete_ticket", DENIED_RESULT("delete_ticket needs level admin; the requester is user")),
    ).toBe(
      "`delete_ticket` was not run: delete_ticket needs level admin; the requester is user. Ask an admin if you need it.",
    );
    expect(commandReply("send_message", REJECTED_RESULT("U0ADMIN"))).toBe(
      "`send_message` was not run: <@U0ADMIN> rejected it.",
    );
    expect(commandReply("send_message", EXPIRED_RESULT)).toContain("before the approval expired. Ask again");
    expect(commandReply("send_message", AUDIT_UNAVAILABLE_RESULT)).toContain("Try again in a few minutes.");
  });

  it("an unknown name gives the resolver's own sentence; a tool's error passes through, a result reads as words", () => {
    expect(
      commandReply("send_message", UNRESOLVED_RESULT("No channel named #genral. Did you mean #general?")),
    ).toBe("`send_message` was not run: No channel named #genral. Did you mean #general?");
    expect(commandReply("get_ticket", "Error from get_ticket: There is no ticket #9.")).toBe(
      "`get_ticket` failed: There is no ticket #9.",
    );
    expect(commandReply("get_ticket", '{"id":9}')).toBe("`get_ticket` returned:\nId: 9");
  });
});
