import type { HttpHandler } from "../http/route-server.ts";
import type { ScheduleStore } from "../schedules/schedule-store.ts";
import type { Scheduler } from "../schedules/scheduler.ts";
import { ticketLinks } from "../slack/work-objects/ticket-links.ts";
import type { SlackTarget } from "./build-slack-clients.ts";
import type { HermesParts } from "./hermes-parts.ts";

/** Bolt, the listeners and the admin surfaces: loaded only by processes that take Slack requests. */
async function loadReceiving() {
  const [app, events, actions, admin, assistant, directory, workObjects, agentView, teamOfBody, uninstalls] =
    await Promise.all([
      import("../slack/create-slack-app.ts"),
      import("../slack/event-listeners.ts"),
      import("../slack/action-listeners.ts"),
      import("./admin-surfaces.ts"),
      import("../slack/assistant/create-assistant.ts"),
      import("../slack/references/directory-events.ts"),
      import("../slack/work-objects/register-work-objects.ts"),
      import("../slack/agent-view/register-agent-view.ts"),
      import("../slack/oauth/team-of-body.ts"),
      import("../slack/oauth/register-uninstalls.ts"),
    ]);
  return {
    ...app,
    ...events,
    ...actions,
    ...admin,
    ...assistant,
    ...directory,
    ...workObjects,
    ...agentView,
    ...teamOfBody,
    ...uninstalls,
  };
}

/**
 * The Bolt app that takes Slack's requests (signed HTTP or Socket Mode), with the event intake, the
 * assistant, `/hermes` and the App Home, and the approval and feedback buttons; `routes` are served
 * before Bolt's. Not started yet.
 */
export async function buildReceiving(
  parts: HermesParts,
  o: { target: SlackTarget; routes: HttpHandler[]; schedules: ScheduleStore; scheduler: Scheduler },
) {
  const receiving = await loadReceiving();
  const intake = receiving.createEventIntake(parts);
  const agentView = parts.config.env.HERMES_SLACK_SURFACE !== "assistant_view";
  const { target } = o;
  const installs = parts.slack.installs;
  const slackApp = receiving.createSlackApp({
    ...(installs
      ? {
          // OAuth installs: each request is authorized and handled as its workspace's (or org's).
          authorize: (source) => installs.install.authorize(source),
          within: (body, handle) => installs.workspaces.handleRequest(receiving.teamOfBody(body), handle),
        }
      : { botToken: target.botToken, bot: parts.slack.bot }),
    signingSecret: target.signingSecret,
    appToken: target.appToken,
    slackApiUrl: target.slackApiUrl,
    logger: parts.logger,
    routes: installs ? [...o.routes, ...installs.install.routes] : o.routes,
    events: intake,
    // HERMES_SLACK_SURFACE: the agent view (Messages tab, agent sessions) or the assistant split view.
    ...(agentView ? {} : { assistant: receiving.createHermesAssistant(parts, intake) }),
  });
  if (agentView) receiving.registerAgentView(slackApp.app, parts, intake);
  intake.register(slackApp.app);
  const admin = receiving.registerAdminSurfaces(slackApp.app, parts, {
    schedules: o.schedules,
    onSchedulesChanged: () => o.scheduler.reload(),
  });
  receiving.registerActionListeners(slackApp.app, parts, { refreshHome: admin.refreshHome });
  receiving.registerWorkObjects(slackApp.app, {
    ...parts,
    links: ticketLinks(parts.config.env.HERMES_TICKET_URL_BASE),
  });
  if (installs) receiving.registerUninstalls(slackApp.app, installs.install, parts.logger);
  if (parts.slack.directory)
    receiving.registerDirectoryEvents(slackApp.app, parts.slack.directory, parts.logger);
  return slackApp;
}
