/**
 * Runs a job's work as its Slack workspace's: with OAuth installs (any number of workspaces) every Web
 * API call the work makes takes that workspace's token and rate budgets. Absent with one workspace.
 */
export interface TeamScope {
  run<T>(teamId: string | undefined, work: () => Promise<T>): Promise<T>;
}
