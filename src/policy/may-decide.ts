import type { ApproversRule, PermissionLevel } from "../core/permission-levels.ts";

export type DecideCheck = { ok: true } | { ok: false; reason: string };

/**
 * May `deciderId` approve or reject a call that `requesterId` asked for? Rules:
 * - `requester_or_admin` (default): the requester, or any admin;
 * - `admin`: admins only (an admin may decide their own call);
 * - `not_requester` (four-eyes): anyone but the requester, admins included; an admin's own call
 *   still needs someone else.
 */
export function mayDecide({
  rule,
  requesterId,
  deciderId,
  deciderLevel,
}: {
  rule: ApproversRule;
  requesterId: string;
  deciderId: string;
  deciderLevel: PermissionLevel;
}): DecideCheck {
  const isAdmin = deciderLevel === "admin";
  const isRequester = deciderId === requesterId;
  switch (rule) {
    case "requester_or_admin":
      return isRequester || isAdmin
        ? { ok: true }
        : { ok: false, reason: "only the requester or an admin may decide this" };
    case "admin":
      return isAdmin ? { ok: true } : { ok: false, reason: "only an admin may decide this" };
    case "not_requester":
      if (isRequester)
        return { ok: false, reason: "someone other than the requester must decide this (four-eyes)" };
      return deciderLevel === "viewer"
        ? { ok: false, reason: "viewers may not decide approvals" }
        : { ok: true };
  }
}
