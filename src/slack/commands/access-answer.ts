import type { Access } from "../../agent/run/policy-hook.ts";
import { tenantKey } from "../../core/tenant.ts";
import { resolveAccess } from "../../policy/resolve-access.ts";
import { profileRules } from "../../profiles/channel-profile.ts";
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
  storage: Pick<Storage, "users" | "approvals" | "profiles">;
  slack: Pick<SlackOutput, "redactor">;
  mcp?: McpToolsView;
}

/**
 * `/hermes tools`, `whoami` and `approvals`: answers about what the caller may do, read fresh. `tools`
 * answers for the channel it is typed in: a channel's profile narrows the list to what runs there may call.
 */
export async function accessAnswer(
  s: AccessServices,
  kind: "tools" | "whoami" | "approvals",
  where: { userId: string; channelId?: string | undefined; teamId?: string | undefined },
): Promise<SlackMessagePayload> {
  const { userId } = where;
  if (kind === "tools") {
    const profile = await s.storage.profiles?.forChannel(where.channelId, where.teamId);
    const narrowing = profile?.profile.tools ? profile : undefined;
    const access = await resolveAccess(accessSourcesOf(s), userId, profile && profileRules(profile.profile));
    return toolsMessage(
      s.runtime.registry.list(),
      access,
      s.mcp,
      narrowing ? { source: narrowing.source === "channel" ? "channel" : "default" } : undefined,
    );
  }
  const access = await resolveAccess(accessSourcesOf(s), userId);
  switch (kind) {
    case "whoami":
      return textMessage(whoamiText(access, s.runtime.registry.list().length));
    case "approvals":
      return approvalsMessage(await decidableApprovals(s.storage, access, tenantKey(where.teamId)), (a) =>
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
