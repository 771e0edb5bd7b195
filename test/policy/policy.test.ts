import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { RunIdentity } from "../../src/core/run-identity.ts";
import { createPolicy } from "../../src/policy/create-policy.ts";
import { resolveLevel } from "../../src/policy/levels.ts";
import { mayDecide } from "../../src/policy/may-decide.ts";
import { allowedToolNames } from "../../src/policy/tool-access.ts";
import { defineTool } from "../../src/tools/define-tool.ts";

const noop = () => "ok";
const tools = [
  defineTool({ name: "get_ticket", description: "d", level: "viewer", input: z.object({}), execute: noop }),
  defineTool({ name: "create_ticket", description: "d", level: "user", input: z.object({}), execute: noop }),
  defineTool({
    name: "send_message",
    description: "d",
    level: "user",
    approval: "always",
    input: z.object({ to: z.string() }),
    execute: noop,
  }),
  defineTool({
    name: "update_ticket",
    description: "d",
    level: "user",
    approval: (args: { owner: string }, run) => args.owner !== run.userId,
    input: z.object({ owner: z.string() }),
    execute: noop,
  }),
  defineTool({
    name: "delete_ticket",
    description: "d",
    level: "admin",
    approval: "always",
    input: z.object({}),
    execute: noop,
  }),
];
const run: RunIdentity = { runId: "r", sessionKey: "T:C:1", userId: "U0USER1" };
const byName = (n: string) => tools.find((t) => t.name === n)!;
const call = (name: string) => ({ id: "c", name, arguments: "{}" });

describe("levels", () => {
  it("HERMES_ADMINS wins, then the users row, unknown users are user", () => {
    expect(resolveLevel({ userId: "U0ADMIN", admins: ["U0ADMIN"], stored: "viewer" })).toBe("admin");
    expect(resolveLevel({ userId: "U1", admins: [], stored: "viewer" })).toBe("viewer");
    expect(resolveLevel({ userId: "U1", admins: [] })).toBe("user");
  });
});

describe("tool access", () => {
  it("follows the DESIGN.md level table", () => {
    expect([...allowedToolNames({ tools, level: "viewer" })]).toEqual(["get_ticket"]);
    expect([...allowedToolNames({ tools, level: "user" })]).toEqual([
      "get_ticket",
      "create_ticket",
      "send_message",
      "update_ticket",
    ]);
    expect(allowedToolNames({ tools, level: "admin" }).size).toBe(5);
  });

  it("deny wins; an allow list narrows but never raises", () => {
    expect([...allowedToolNames({ tools, level: "user", deny: ["send_message"] })]).not.toContain(
      "send_message",
    );
    expect([...allowedToolNames({ tools, level: "viewer", allow: ["get_ticket", "delete_ticket"] })]).toEqual(
      ["get_ticket"],
    );
  });
});

describe("createPolicy", () => {
  it("denies what the level does not reach, whatever the model asked", async () => {
    const { hook } = createPolicy({ tools, level: "user" });
    const d = await hook({ tool: byName("delete_ticket"), args: {}, call: call("delete_ticket"), run });
    expect(d).toEqual({ action: "deny", reason: "delete_ticket needs level admin; the requester is user" });
  });

  it("asks for approval per the tool's rule, including rules on the arguments", async () => {
    const { hook } = createPolicy({ tools, level: "user" });
    expect(
      await hook({ tool: byName("send_message"), args: { to: "U2" }, call: call("send_message"), run }),
    ).toEqual({ action: "needs_approval" });
    expect(
      await hook({
        tool: byName("update_ticket"),
        args: { owner: "U0USER1" },
        call: call("update_ticket"),
        run,
      }),
    ).toEqual({ action: "allow" });
    expect(
      await hook({ tool: byName("update_ticket"), args: { owner: "U9" }, call: call("update_ticket"), run }),
    ).toEqual({ action: "needs_approval" });
    expect(await hook({ tool: byName("create_ticket"), args: {}, call: call("create_ticket"), run })).toEqual(
      { action: "allow" },
    );
  });

  it("at resume (approved) it allows, but still applies level and guards", async () => {
    const { hook } = createPolicy({
      tools,
      level: "user",
      guards: {
        send_message: ({ args }) =>
          args.to === "C0SECRET" ? "the requester is not a member of C0SECRET" : undefined,
      },
    });
    expect(
      await hook({
        tool: byName("send_message"),
        args: { to: "U2" },
        call: call("send_message"),
        run,
        approved: true,
      }),
    ).toEqual({ action: "allow" });
    expect(
      await hook({
        tool: byName("send_message"),
        args: { to: "C0SECRET" },
        call: call("send_message"),
        run,
        approved: true,
      }),
    ).toEqual({
      action: "deny",
      reason: "the requester is not a member of C0SECRET",
    });
  });

  it("a guard that throws denies (fail closed)", async () => {
    const { hook } = createPolicy({
      tools,
      level: "user",
      guards: {
        send_message: () => {
          throw new Error("Slack unreachable");
        },
      },
    });
    const d = await hook({
      tool: byName("send_message"),
      args: { to: "C1" },
      call: call("send_message"),
      run,
    });
    expect(d).toEqual({ action: "deny", reason: "the permission check failed (Slack unreachable)" });
  });
});

describe("mayDecide", () => {
  it("requester or admin by default", () => {
    expect(
      mayDecide({ rule: "requester_or_admin", requesterId: "U1", deciderId: "U1", deciderLevel: "user" }).ok,
    ).toBe(true);
    expect(
      mayDecide({
        rule: "requester_or_admin",
        requesterId: "U1",
        deciderId: "U0ADMIN",
        deciderLevel: "admin",
      }).ok,
    ).toBe(true);
    expect(
      mayDecide({ rule: "requester_or_admin", requesterId: "U1", deciderId: "U2", deciderLevel: "user" }),
    ).toEqual({
      ok: false,
      reason: "only the requester or an admin may decide this",
    });
  });

  it("admin only, and four-eyes", () => {
    expect(mayDecide({ rule: "admin", requesterId: "U1", deciderId: "U1", deciderLevel: "user" }).ok).toBe(
      false,
    );
    expect(
      mayDecide({ rule: "admin", requesterId: "U1", deciderId: "U0ADMIN", deciderLevel: "admin" }).ok,
    ).toBe(true);
    expect(
      mayDecide({
        rule: "not_requester",
        requesterId: "U0ADMIN",
        deciderId: "U0ADMIN",
        deciderLevel: "admin",
      }).ok,
    ).toBe(false);
    expect(
      mayDecide({ rule: "not_requester", requesterId: "U1", deciderId: "U2", deciderLevel: "user" }).ok,
    ).toBe(true);
    expect(
      mayDecide({ rule: "not_requester", requesterId: "U1", deciderId: "U3", deciderLevel: "viewer" }).ok,
    ).toBe(false);
  });
});
