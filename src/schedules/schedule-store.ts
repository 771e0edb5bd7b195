import { HermesError } from "../core/errors.ts";
import { LEGACY_TENANT, type TenantKey } from "../core/tenant.ts";
import type { Database } from "../store/db.ts";
import { and, asc, eq, max, sql } from "../store/drizzle.ts";
import { pgCode } from "../store/pg-error.ts";
import { type ScheduleFireStatus, scheduleFires, schedules } from "../store/schema.ts";
import { checkCron } from "./check-cron.ts";

export type Schedule = typeof schedules.$inferSelect;

export interface NewSchedule {
  /** The team it belongs to and fires in (`core/tenant.ts`); default the legacy tenant ''. */
  teamId?: TenantKey;
  cron: string;
  /** IANA time zone the cron pattern is read in. Default UTC. */
  timezone?: string;
  channelId: string;
  prompt: string;
  /** The admin who added it: the turn runs as this user, with this user's level. */
  ownerId: string;
  /** For tests and imports; default now. */
  createdAt?: Date;
}

export interface ScheduleStore {
  /** Validates the cron pattern and time zone (`bad_request` otherwise) and stores the schedule. */
  add(input: NewSchedule): Promise<Schedule>;
  /**
   * `team`: that team's schedules only (what a person is shown); absent: every team's (the scheduler,
   * which fires each in its own team).
   */
  list(options?: { enabledOnly?: boolean; team?: TenantKey }): Promise<Schedule[]>;
  /** With `team`, another team's schedule reads as missing. */
  get(id: number, team?: TenantKey): Promise<Schedule | undefined>;
  /**
   * Deletes the schedule and its fire history; false when there was no such schedule (of `team`,
   * when given: another team's is not touched and reads as missing).
   */
  remove(id: number, team?: TenantKey): Promise<boolean>;
  /**
   * Claims one fire: inserts (schedule, fireAt) unless the row exists or the schedule is gone or
   * disabled. True only for the caller whose row went in: the one that runs the fire.
   */
  claimFire(scheduleId: number, fireAt: Date): Promise<boolean>;
  finishFire(scheduleId: number, fireAt: Date, status: Exclude<ScheduleFireStatus, "claimed">): Promise<void>;
  /** The latest claimed fire time per schedule (schedules never fired are absent). */
  lastFireTimes(): Promise<Map<number, Date>>;
}

const FOREIGN_KEY_VIOLATION = "23503";

export function createScheduleStore({ db }: { db: Database }): ScheduleStore {
  return {
    async add(input) {
      const timezone = input.timezone ?? "UTC";
      const cron = input.cron.trim();
      const check = checkCron(cron, timezone);
      if (!check.ok) throw new HermesError("bad_request", `${capitalize(check.problem)}.`);
      if (input.prompt.trim() === "") throw new HermesError("bad_request", "The prompt is empty.");
      const [row] = await db
        .insert(schedules)
        .values({
          teamId: input.teamId ?? LEGACY_TENANT,
          cron,
          timezone,
          channelId: input.channelId,
          prompt: input.prompt.trim(),
          ownerId: input.ownerId,
          ...(input.createdAt ? { createdAt: input.createdAt } : {}),
        })
        .returning();
      if (!row) throw new HermesError("storage_unavailable", "The schedule was not saved.");
      return row;
    },

    async list({ enabledOnly = false, team } = {}) {
      return db
        .select()
        .from(schedules)
        .where(
          and(
            team === undefined ? undefined : eq(schedules.teamId, team),
            enabledOnly ? eq(schedules.enabled, true) : undefined,
          ),
        )
        .orderBy(asc(schedules.id));
    },

    async get(id, team) {
      const [row] = await db.select().from(schedules).where(scheduleOf(id, team));
      return row;
    },

    async remove(id, team) {
      const rows = await db.delete(schedules).where(scheduleOf(id, team)).returning({ id: schedules.id });
      return rows.length > 0;
    },

    async claimFire(scheduleId, fireAt) {
      try {
        const { rows } = await db.execute<{ id: number }>(sql`
          INSERT INTO ${scheduleFires} (schedule_id, fire_at)
          SELECT id, ${fireAt.toISOString()}::timestamptz FROM ${schedules}
          WHERE id = ${scheduleId} AND enabled
          ON CONFLICT (schedule_id, fire_at) DO NOTHING
          RETURNING id`);
        return rows.length === 1;
      } catch (err) {
        // The schedule was removed between the SELECT and the insert: nothing to run.
        if (pgCode(err) === FOREIGN_KEY_VIOLATION) return false;
        throw err;
      }
    },

    async finishFire(scheduleId, fireAt, status) {
      await db.execute(sql`
        UPDATE ${scheduleFires} SET status = ${status}
        WHERE schedule_id = ${scheduleId} AND fire_at = ${fireAt.toISOString()}::timestamptz`);
    },

    async lastFireTimes() {
      const rows = await db
        .select({ scheduleId: scheduleFires.scheduleId, last: max(scheduleFires.fireAt) })
        .from(scheduleFires)
        .groupBy(scheduleFires.scheduleId);
      const out = new Map<number, Date>();
      for (const { scheduleId, last } of rows) if (last) out.set(scheduleId, new Date(last));
      return out;
    },
  };
}

const scheduleOf = (id: number, team: TenantKey | undefined) =>
  and(eq(schedules.id, id), team === undefined ? undefined : eq(schedules.teamId, team));

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
