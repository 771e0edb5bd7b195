import type { Config } from "../config.ts";

/**
 * What one Hermes process does. `all` (`npm start`): receiver and worker together. `receiver`
 * (`npm start -- --receiver`): takes Slack's events, clicks and commands, records and queues them,
 * runs no turn. `worker` (`npm run worker`): runs queued turns and the background work, takes no
 * Slack request. Split roles share one Redis (the queue) and one Postgres.
 */
export type ProcessRole = "all" | "receiver" | "worker";

/** The role named on the command line; both flags at once is a mistake, said plainly. */
export function parseRole(argv: readonly string[]): ProcessRole | { error: string } {
  const receiver = argv.includes("--receiver");
  const worker = argv.includes("--worker");
  if (receiver && worker)
    return {
      error:
        "--receiver and --worker exclude each other: start one process of each (`npm start -- --receiver`, `npm run worker`), or neither flag for both in one process",
    };
  return receiver ? "receiver" : worker ? "worker" : "all";
}

/** What a split role needs that `all` does not; empty when the configuration fits the role. */
export function roleProblems(role: ProcessRole, config: Config): string[] {
  if (role === "all") return [];
  const command = role === "receiver" ? "`npm start -- --receiver`" : "`npm run worker`";
  const other = role === "receiver" ? "workers" : "receivers";
  const problems: string[] = [];
  if (!config.env.REDIS_URL)
    problems.push(`${command} needs REDIS_URL: the queue it shares with the ${other}`);
  if (!config.env.DATABASE_URL)
    problems.push(
      `${command} needs DATABASE_URL: the Postgres it shares with the ${other} (the embedded database serves one process)`,
    );
  if (config.slack.mode === "sandbox")
    problems.push(
      `${command} needs a Slack token (SLACK_BOT_TOKEN); the sandbox runs receiver and worker in one process with \`npm start\``,
    );
  return problems;
}
