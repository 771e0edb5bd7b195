import { type Access, type AccessSources, resolveAccess } from "../../policy/resolve-access.ts";
import type { Storage } from "../../store/storage.ts";
import type { SlackMessagePayload } from "../answer-blocks.ts";
import { toCardApproval } from "../deliver-result.ts";
import type { SlackOutput } from "../slack-output.ts";
import { approvalsMessage, decidableApprovals } from "./approvals-blocks.ts";
import { textMessage } from "./block-builders.ts";
import { toolsMessage } from "./tools-blocks.ts";

/** What `/hermes` answers about access read: the caller's access, the approvals they may decide, their cards. */
export type AccessServices = AccessSources & Pick<Storage, "approvals"> & Pick<SlackOutput, "redactor">;

/** `/hermes tools`, `whoami` and `approvals`: answers about what the caller may do, read fresh. */
export async function accessAnswer(
  s: AccessServices,
  kind: "tools" | "whoami" | "approvals",
  userId: string,
): Promise<SlackMessagePayload> {
  const access = await resolveAccess(s, userId);
  switch (kind) {
    case "tools":
      return toolsMessage(s.registry.list(), access);
    case "whoami":
      return textMessage(whoamiText(access, s.registry.list().length));
    case "approvals":
      return approvalsMessage(await decidableApprovals(s, access), (a) => toCardApproval(s, a));
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
