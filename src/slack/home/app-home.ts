import type { App, types } from "@slack/bolt";
import { errorMessage } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import { tenantKey } from "../../core/tenant.ts";
import { resolveAccess } from "../../policy/resolve-access.ts";
import { DEFAULT_PROFILE_ID } from "../../profiles/channel-profile.ts";
import type { ScheduleStore } from "../../schedules/schedule-store.ts";
import type { Storage } from "../../storage.ts";
import { recordAuditRead } from "../../store/audit-read.ts";
import { accessSourcesOf } from "../access-deps.ts";
import type { AccessServices } from "../commands/access-answer.ts";
import { decidableApprovals } from "../commands/approvals-blocks.ts";
import { section } from "../commands/block-builders.ts";
import { toCardApproval } from "../deliver-result.ts";
import type { SlackOutput } from "../slack-output.ts";
import { type AdminHomeData, homeView } from "./home-view.ts";
import { registerProfileModal } from "./profile-modal.ts";

export type AppHomeServices = AccessServices & {
  logger: Logger;
  storage: Pick<Storage, "audit" | "profiles">;
  slack: Pick<SlackOutput, "client"> & Partial<Pick<SlackOutput, "slack">>;
};

export interface AppHomeOptions {
  /** Admins see the schedules when given. */
  schedules?: Pick<ScheduleStore, "list">;
  now?: () => Date;
}

const RECENT_REQUESTS = 10;
const ADMIN_AUDIT_ROWS = 20;
const MAX_PROFILES_SHOWN = 30;

/** Publishes the App Home whenever a user opens its Home tab (`app_home_opened`, tab `home`). */
export function registerAppHome(app: App, services: AppHomeServices, options: AppHomeOptions = {}): void {
  app.event("app_home_opened", async ({ event, body }) => {
    if (event.tab !== "home") return;
    await publishHome(services, options, event.user, body.team_id);
  });
  // Admins edit channel profiles from their Home: a modal, then the Home again.
  registerProfileModal(app, services, (userId, teamId) => publishHome(services, options, userId, teamId));
}

/**
 * Builds and publishes `userId`'s App Home (`views.publish`). Call it again to refresh it, e.g.
 * after an approval was decided. If the data cannot be read, a short notice is published instead;
 * failures are logged, never thrown.
 */
export async function publishHome(
  s: AppHomeServices,
  options: AppHomeOptions,
  userId: string,
  /** The workspace the Home is in (its channel profiles); absent: the single workspace's. */
  teamId?: string,
): Promise<void> {
  let view: types.HomeView;
  try {
    view = await buildHome(s, options, userId, teamId);
  } catch (err) {
    s.logger.error({ err: errorMessage(err), userId }, "could not build the App Home");
    view = {
      type: "home",
      blocks: [section(":warning: I could not load this page right now. Open the tab again in a moment.")],
    };
  }
  try {
    await s.slack.client.views.publish({ user_id: userId, view });
  } catch (err) {
    s.logger.error({ err: errorMessage(err), userId }, "views.publish failed for the App Home");
  }
}

async function buildHome(s: AppHomeServices, options: AppHomeOptions, userId: string, teamId?: string) {
  const now = options.now?.() ?? new Date();
  const access = await resolveAccess(accessSourcesOf(s), userId);
  // Only this workspace's rows (core/tenant.ts), as every /hermes read.
  const team = tenantKey(teamId);
  const recent = await s.storage.audit.query({
    user: userId,
    action: "tool.requested",
    limit: RECENT_REQUESTS,
    team,
  });
  let admin: AdminHomeData | undefined;
  if (access.level === "admin") {
    // The admin panel reads the whole log: audited like any other read of it.
    await recordAuditRead(s.storage.audit, {
      surface: "app_home",
      actorId: userId,
      ...(teamId ? { teamId } : {}),
      filters: { limit: ADMIN_AUDIT_ROWS },
    });
    const profiles = s.storage.profiles;
    const [approvals, audit, schedules, profileList] = await Promise.all([
      decidableApprovals(s.storage, access, team),
      s.storage.audit.query({ limit: ADMIN_AUDIT_ROWS, team }),
      options.schedules?.list({ team }),
      profiles?.list(MAX_PROFILES_SHOWN, teamId),
    ]);
    admin = {
      approvals,
      audit: audit.rows,
      schedules,
      ...(profiles && profileList
        ? {
            profiles: {
              entries: profileList,
              file: profiles.file,
              names: await channelNames(
                s,
                profileList.map((p) => p.id),
              ),
            },
          }
        : {}),
    };
  }
  return homeView({
    access,
    tools: s.runtime.registry.list(),
    recent: recent.rows,
    admin,
    toCard: (a) => toCardApproval({ registry: s.runtime.registry, redactor: s.slack.redactor }, a),
    now,
  });
}

/** The channels' names for the profiles' Edit buttons (cached by the Slack port); an unknown one keeps its id. */
async function channelNames(s: AppHomeServices, ids: readonly string[]): Promise<Record<string, string>> {
  const port = s.slack.slack;
  if (!port) return {};
  const found = await Promise.all(
    ids.map((id) => (id === DEFAULT_PROFILE_ID ? undefined : port.channelById(id).catch(() => undefined))),
  );
  return Object.fromEntries(found.flatMap((c) => (c ? [[c.id, c.name]] : [])));
}
