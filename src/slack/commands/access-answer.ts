import type { Access } from "../../agent/run/policy-hook.ts";
import { resolveAccess } from "../../policy/resolve-access.ts";
import type { Storage } from "../../storage.ts";
import { type AccessDeps, accessSourcesOf } from "../access-deps.ts";
import type { SlackMessagePayload } from "../answer-blocks.ts";
import { toCardApproval } from "../deliver-result.ts";
import type { SlackOutput } from "../slack-output.ts";
import { approvalsMessage, decidableApprovals } from "./approvals-blocks.ts";
import { textMessage } from "./block-builders.ts";
import { type McpToolsView, toolsMessage } from "./tools-blocks.ts";

/**
 * What `/hermes` answers about access read: the caller's access, the approvals they may decide, their
 * cards, and the MCP servers' state when any are configured.
 */
export interface AccessServices extends AccessDeps {
  storage: Pick<Storage, "users" | "approvals">;
  slack: Pick<SlackOutput, "redactor">;
  mcp?: McpToolsView;
}

/** `/hermes tools`, `whoami` and `approvals`: answers about what the caller may do, read fresh. */
export async function accessAnswer(
  s: AccessServices,
  kind: "tools" | "whoami" | "approvals",
  userId: string,
): Promise<SlackMessagePayload> {
  const access = await resolveAccess(accessSourcesOf(s), userId);
  switch (kind) {
    case "tools":
      return toolsMessage(s.runtime.registry.list(), access, s.mcp);
    case "whoami":
      return textMessage(whoamiText(access, s.runtime.registry.list().length));
    case "approvals":
      return approvalsMessage(await decidableApprovals(s.storage, access), (a) =>
        toCardApproval({ registry: s.runtime.registry, redactor: s.slack.redactor }, a),
      );
  }
}

/** `/hermes whoami`. */
export function whoamiText(access: Pick<Access, "userId" | "level" | "allowed">, toolCount: number): string {
  const admin = access.level === "admin";
  const role = admin
    ? " — you are an admin: you can decide approvals, query the audit log and manage schedules."
    : " — not an admin.";
  return [
    `You are <@${access.userId}> (\`${access.userId}\`).`,
    `Level: *${access.level}*${role}`,
    `You may use *${access.allowed.size}* of ${toolCount} tools (\`/hermes tools\` lists them).`,
  ].join("\n");
}
