import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChatModel } from "../agent/model/chat-model.ts";
import type { ToolEvent, ToolEventSink } from "../agent/run/policy-hook.ts";
import { buildTools } from "../boot/build-tools.ts";
import { openOfflineWorkspace } from "../boot/offline-workspace.ts";
import { seedDemoTickets } from "../boot/seed-demo-tickets.ts";
import { loadConfig } from "../config.ts";
import type { Logger } from "../core/logger.ts";
import { createRedactor } from "../policy/redact.ts";
import { DEMO } from "../sandbox/seed-demo-workspace.ts";
import { sql } from "../store/drizzle.ts";

/** The tables a scenario may change; emptied (ids restarted) before each run. The audit log only grows. */
const SCENARIO_TABLES = ["tickets", "memories", "results", "approvals", "runs", "users"];

/** Who makes a scenario's request, by level: demo workspace members, so Slack checks see real members. */
export const REQUESTERS = { viewer: DEMO.user, user: DEMO.user, admin: DEMO.admin } as const;

/**
 * What every scenario runs against, built once per eval process: embedded PGlite in a temp folder
 * (migrated once; the scenario tables are emptied and the demo tickets seeded again before each run),
 * the Slack Web API emulator with the demo workspace behind the real `SlackPort`, and the audit log.
 * Tool events of the run in progress also go to `recordTo`'s listener.
 */
export async function createEvalEnvironment(logger: Logger) {
  const dataDir = await mkdtemp(join(tmpdir(), "hermes-eval-"));
  try {
    const { redact } = createRedactor();
    const workspace = await openOfflineWorkspace({ dataDir, logger, botToken: "xoxb-test", redact });
    const { db, users, results, auditSink, slack } = workspace;
    // Built-ins only: HERMES_TOOLS, HTTP and MCP tools of this machine are not part of a scenario.
    const config = loadConfig({ HERMES_DATA_DIR: dataDir });
    let listener: ((e: ToolEvent) => void) | undefined;
    const recordingSink: ToolEventSink = async (e) => {
      listener?.(e);
      await auditSink(e);
    };
    return {
      db,
      users,
      logger,
      /** Tool events from now on go to `listener` too (undefined: stop). */
      recordTo(next: ((e: ToolEvent) => void) | undefined) {
        listener = next;
      },
      /** The built-in tools and their guards, with `delegate` on this configuration's model. */
      async toolsFor(model: ChatModel) {
        const built = await buildTools({
          config,
          logger,
          db,
          users,
          results,
          slack,
          model,
          auditSink: recordingSink,
          rawEnv: {},
        });
        return { ...built, config, auditSink: recordingSink };
      },
      /** A clean slate for the next run: empty scenario tables, the demo tickets again. */
      async reset() {
        await db.execute(sql.raw(`TRUNCATE ${SCENARIO_TABLES.join(", ")} RESTART IDENTITY CASCADE`));
        await seedDemoTickets(db, DEMO.team);
      },
      async close() {
        try {
          await workspace.close();
        } finally {
          await rm(dataDir, { recursive: true, force: true });
        }
      },
    };
  } catch (err) {
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
}

export type EvalEnvironment = Awaited<ReturnType<typeof createEvalEnvironment>>;
