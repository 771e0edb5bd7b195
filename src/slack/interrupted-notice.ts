/** What the thread reads when a call was interrupted by a restart (one notice per call). */
export function interruptedNotice(call: { tool: string; runId: string }): string {
  return `:warning: A call to \`${call.tool}\` was interrupted by a restart before it finished. It may or may not have taken effect, and it was not retried. Reference: run \`${call.runId}\`.`;
}

/** What the thread reads when its run's worker died and no other could continue it (once per run). */
export function abandonedNotice(runId: string): string {
  return `:warning: My work on this request stopped when the process running it died, and no other process could pick it up. Nothing more will be done for it; please ask again if you still need it. Reference: run \`${runId}\`.`;
}
