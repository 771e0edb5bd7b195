/** What the thread reads when a call was interrupted by a restart (one notice per call). */
export function interruptedNotice(call: { tool: string; runId: string }): string {
  return `:warning: A call to \`${call.tool}\` was interrupted by a restart before it finished. It may or may not have taken effect, and it was not retried. Reference: run \`${call.runId}\`.`;
}
