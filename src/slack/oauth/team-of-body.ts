import type { TeamRef } from "./team-authorizer.ts";

type Body = Record<string, unknown>;

const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);
const obj = (v: unknown) => (typeof v === "object" && v !== null ? (v as Body) : undefined);

/**
 * The workspace a Slack request is about, read as Bolt reads it (`buildSource`): an event's first
 * authorization (an org-wide install's has no team: the event's `team_id` / `context_team_id` is the
 * workspace), a slash command's `team_id` / `enterprise_id`, an interaction's `team` (null in an org-wide
 * install: the user's `team_id`) and `enterprise`.
 */
export function teamOfBody(body: Body): TeamRef | undefined {
  if (body.type === "event_callback") {
    const auth = Array.isArray(body.authorizations) ? obj(body.authorizations[0]) : undefined;
    const isEnterpriseInstall = auth?.is_enterprise_install === true || body.is_enterprise_install === true;
    const teamId = str(auth?.team_id) ?? str(body.context_team_id) ?? str(body.team_id);
    const enterpriseId = auth
      ? str(auth.enterprise_id)
      : (str(body.enterprise_id) ?? str(body.context_enterprise_id));
    return { teamId, enterpriseId, isEnterpriseInstall };
  }
  if (typeof body.command === "string") {
    return {
      teamId: str(body.team_id),
      enterpriseId: str(body.enterprise_id),
      isEnterpriseInstall: body.is_enterprise_install === "true" || body.is_enterprise_install === true,
    };
  }
  const team = obj(body.team);
  const user = obj(body.user);
  const view = obj(body.view);
  const teamId = str(view?.app_installed_team_id) ?? str(team?.id) ?? str(user?.team_id);
  if (!teamId && !body.enterprise) return undefined;
  return {
    teamId,
    enterpriseId: str(obj(body.enterprise)?.id) ?? str(team?.enterprise_id),
    isEnterpriseInstall: body.is_enterprise_install === true,
  };
}
