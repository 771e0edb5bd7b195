import type { Decision, PendingCall } from "../agent/run/snapshot.ts";

export interface TerminalApprovalOptions {
  /** `--approve`: every call the run waits on is approved without asking. */
  approveAll: boolean;
  /** Who decides (the `--user` the turn runs as: the requester may decide their own calls). */
  userId: string;
  /** Asks one yes/no question on the terminal; absent when stdin is not a terminal. */
  ask?: (question: string) => Promise<string>;
  print: (line: string) => void;
}

/**
 * The decisions for a run paused on approval in `npm run agent`, which has no Slack card to click:
 * `--approve` approves all, a terminal is asked once per call, and anything else is rejected (the
 * run then ends with the model told so), because a call nobody approved must not run.
 */
export async function decideInTerminal(
  pending: readonly PendingCall[],
  o: TerminalApprovalOptions,
): Promise<Record<string, Decision>> {
  const decisions: Record<string, Decision> = {};
  for (const call of pending) {
    const shown = `${call.tool} ${JSON.stringify(call.args)}`;
    let approved = o.approveAll;
    if (!approved && o.ask) approved = /^y(es)?$/i.test((await o.ask(`approve ${shown}? [y/N] `)).trim());
    else if (!approved)
      o.print(`✗ not approved: ${shown} (pass --approve, or run it in a terminal to be asked)`);
    decisions[call.callId] = approved
      ? { status: "approved", by: o.userId, argsSha256: call.argsSha256 }
      : { status: "rejected", by: o.userId };
  }
  return decisions;
}
