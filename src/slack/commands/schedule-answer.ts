import { errorMessage, isHermesError } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import { tenantKey } from "../../core/tenant.ts";
import { formatScheduleList } from "../../schedules/format-schedules.ts";
import { parseScheduleCommand } from "../../schedules/parse-schedule-command.ts";
import type { ScheduleStore } from "../../schedules/schedule-store.ts";
import type { Directory } from "../../tools/references/resolve-reference.ts";
import { resolveNamed } from "./resolve-named.ts";

const SCHEDULE_EXAMPLE = '/hermes schedule add "0 9 * * 1-5" #ops "summarize urgent open tickets"';

export interface ScheduleCommandOptions {
  /** Where schedules live; without it `/hermes schedule` says schedules are not enabled. */
  schedules?: Pick<ScheduleStore, "add" | "list" | "remove">;
  /** Called after a schedule was added or removed (e.g. the scheduler's `reload`). Its failure is logged. */
  onSchedulesChanged?: () => unknown;
  now?: () => Date;
}

/**
 * `/hermes schedule add|list|remove …` for an admin (the caller checked): the answer as mrkdwn, over
 * the caller's team's schedules only (another team's schedule number reads as missing). The channel
 * of `add` is looked up in `directory` as every other subcommand's channel is.
 */
export async function scheduleAnswer(
  options: ScheduleCommandOptions,
  input: { text: string; userId: string; teamId?: string | undefined; logger: Logger; directory: Directory },
): Promise<string> {
  const team = tenantKey(input.teamId);
  const store = options.schedules;
  if (!store) return "Schedules are not enabled on this Hermes.";
  const parsed = await parseScheduleCommand(input.text, {
    resolveChannel: async (written) => {
      const named = await resolveNamed(input.directory, written, "channel", SCHEDULE_EXAMPLE);
      return named.ok ? { ok: true, id: named.resolved.id } : named;
    },
  });
  if (!parsed.ok) return parsed.error;
  const { command } = parsed;
  const now = options.now?.() ?? new Date();
  switch (command.kind) {
    case "help":
      return command.text;
    case "list":
      return formatScheduleList(await store.list({ team }), now);
    case "add": {
      let added: Awaited<ReturnType<ScheduleStore["add"]>>;
      try {
        added = await store.add({
          teamId: team,
          cron: command.cron,
          timezone: command.timezone,
          channelId: command.channelId,
          prompt: command.prompt,
          ownerId: input.userId,
        });
      } catch (err) {
        if (isHermesError(err, "bad_request")) return err.message;
        throw err;
      }
      await changed(options, input.logger);
      return `Added schedule *${added.id}*; it runs as you.\n${formatScheduleList([added], now)}`;
    }
    case "remove": {
      if (!(await store.remove(command.id, team))) return `There is no schedule ${command.id}.`;
      await changed(options, input.logger);
      return `Removed schedule *${command.id}*.`;
    }
  }
}

async function changed(options: ScheduleCommandOptions, logger: Logger): Promise<void> {
  try {
    await options.onSchedulesChanged?.();
  } catch (err) {
    logger.error({ err: errorMessage(err) }, "onSchedulesChanged failed after a /hermes schedule change");
  }
}
