import type { ServerResponse } from "node:http";
import { z } from "zod";
import type { Logger } from "../../core/logger.ts";
import type { RunFilter, RunQuery } from "../../store/run-query.ts";
import { RUN_STATUSES } from "../../store/schema.ts";
import { describeIssues } from "./api-inputs.ts";
import { PageApiError, sendOk } from "./json-http.ts";

const RUNS_PATH = "/sandbox/api/runs";

/** `24h`, `7d`, `30m` or an ISO date: the start of the window of runs to list. */
const since = z
  .string()
  .trim()
  .transform((value, ctx) => {
    const m = /^(\d{1,5})([mhd])$/.exec(value);
    if (m)
      return new Date(Date.now() - Number(m[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as "m"]);
    const at = new Date(value);
    if (Number.isNaN(at.getTime())) {
      ctx.addIssue({ code: "custom", message: "use 30m, 24h, 7d or a date like 2026-01-31" });
      return z.NEVER;
    }
    return at;
  });

const listQuery = z.object({
  status: z.enum(RUN_STATUSES, { message: `one of ${RUN_STATUSES.join(", ")}` }).optional(),
  user: z
    .string()
    .regex(/^[UW][A-Z0-9]{1,20}$/, "not a user id")
    .optional(),
  since: since.optional(),
  limit: z.coerce.number().int().min(1).max(100).optional(),
});

const runId = z.string().regex(/^[A-Za-z0-9_-]{1,80}$/);

/**
 * The Runs panel's reads: `GET /sandbox/api/runs` (admins: every run; anyone else: their own) with
 * `status`, `user`, `since` and `limit` filters, and `GET /sandbox/api/runs/<id>` with its timeline,
 * answered 404 alike for a run that does not exist and one the reader may not see.
 */
export function createRunsRoutes(o: {
  runQuery?: RunQuery;
  /** Whether the reader sees every run: the same rule as `/hermes runs` (HERMES_ADMINS or the `users` level). */
  isAdmin: (userId: string) => Promise<boolean>;
  logger: Logger;
}) {
  async function read<T>(what: () => Promise<T>): Promise<T> {
    try {
      return await what();
    } catch (err) {
      o.logger.warn({ err }, "sandbox page: reading runs failed");
      throw new PageApiError(503, "runs_unavailable", "The run records cannot be read right now.");
    }
  }

  async function list(res: ServerResponse, url: URL, me: string): Promise<void> {
    const parsed = listQuery.safeParse(Object.fromEntries(url.searchParams));
    if (!parsed.success) throw new PageApiError(400, "invalid_input", describeIssues(parsed.error));
    const { status, user, since: from, limit } = parsed.data;
    const admin = await read(() => o.isAdmin(me));
    if (!admin && user && user !== me)
      throw new PageApiError(403, "own_runs_only", "You can see only your own runs; admins see everyone's.");
    const filter: RunFilter = {
      ...(status ? { status } : {}),
      ...(admin ? (user ? { userId: user } : {}) : { userId: me }),
      ...(from ? { since: from } : {}),
      limit: limit ?? 50,
    };
    const runs = o.runQuery ? await read(() => o.runQuery!.list(filter)) : [];
    sendOk(res, { available: Boolean(o.runQuery), scope: admin ? "all" : "own", runs });
  }

  async function detail(res: ServerResponse, id: string, me: string): Promise<void> {
    const notFound = new PageApiError(404, "run_not_found", "No such run, or it is not yours to see.");
    if (!o.runQuery || !runId.safeParse(id).success) throw notFound;
    const run = await read(() => o.runQuery!.get(id));
    if (!run || (run.userId !== me && !(await read(() => o.isAdmin(me))))) throw notFound;
    sendOk(res, { run });
  }

  return {
    /** Answers the request when it is one of these routes (`me` is the page's checked `as`). */
    async handle(res: ServerResponse, url: URL, me: () => string): Promise<boolean> {
      const path = url.pathname;
      if (path === RUNS_PATH) await list(res, url, me());
      else if (path.startsWith(`${RUNS_PATH}/`))
        await detail(res, decodeURIComponent(path.slice(RUNS_PATH.length + 1)), me());
      else return false;
      return true;
    },
  };
}
