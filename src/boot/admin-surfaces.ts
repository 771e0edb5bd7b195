import type { App } from "@slack/bolt";
import type { ScheduleStore } from "../schedules/schedule-store.ts";
import type { HermesCommandServices } from "../slack/commands/hermes-command.ts";
import { registerHermesCommand } from "../slack/commands/hermes-command.ts";
import { publishHome, registerAppHome } from "../slack/home/app-home.ts";

/** `/hermes …` (with its audit page buttons) and the App Home; returns how to refresh one user's Home. */
export function registerAdminSurfaces(
  app: App,
  s: HermesCommandServices,
  options: { schedules: ScheduleStore; onSchedulesChanged: () => unknown },
): { refreshHome: (userId: string) => Promise<unknown> } {
  registerHermesCommand(app, s, {
    schedules: options.schedules,
    onSchedulesChanged: options.onSchedulesChanged,
  });
  registerAppHome(app, s, { schedules: options.schedules });
  return { refreshHome: (userId) => publishHome(s, { schedules: options.schedules }, userId) };
}
