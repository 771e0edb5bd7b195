import { booleanArg, requiredString } from "../api-args.ts";
import { SlackApiError } from "../api-error.ts";
import type { MethodHandler } from "../method-types.ts";
import type { SandboxUserGroup } from "../user-groups.ts";

/**
 * `usergroups.list` (one answer, no pages; `include_users`, `include_count`, `include_disabled`) and
 * `usergroups.users.list`, shaped as Slack answers them.
 */
export const usergroupsMethods: Record<string, MethodHandler> = {
  "usergroups.list": (ctx) => {
    const includeUsers = booleanArg(ctx.args, "include_users") ?? false;
    const includeCount = booleanArg(ctx.args, "include_count") ?? false;
    const includeDisabled = booleanArg(ctx.args, "include_disabled") ?? false;
    return {
      usergroups: ctx.workspace.userGroups
        .list({ includeDisabled })
        .map((g) => apiUserGroup(g, { includeUsers, includeCount })),
    };
  },

  "usergroups.users.list": (ctx) => {
    const id = requiredString(ctx.args, "usergroup", "no_such_subteam");
    const group = ctx.workspace.userGroups.get(id);
    const includeDisabled = booleanArg(ctx.args, "include_disabled") ?? false;
    if (!group || (group.date_delete && !includeDisabled)) throw new SlackApiError("no_such_subteam");
    return { users: group.users };
  },
};

export function apiUserGroup(
  g: SandboxUserGroup,
  { includeUsers = true, includeCount = true }: { includeUsers?: boolean; includeCount?: boolean } = {},
): Record<string, unknown> {
  return {
    id: g.id,
    team_id: g.team_id,
    is_usergroup: true,
    is_subteam: true,
    name: g.name,
    description: g.description,
    handle: g.handle,
    is_external: false,
    date_create: g.date_create,
    date_update: g.date_update,
    date_delete: g.date_delete,
    auto_type: null,
    auto_provision: false,
    enterprise_subteam_id: "",
    created_by: g.created_by,
    updated_by: g.created_by,
    deleted_by: null,
    prefs: { channels: [], groups: [] },
    ...(includeUsers ? { users: [...g.users] } : {}),
    ...(includeCount || includeUsers ? { user_count: g.users.length } : {}),
  };
}
