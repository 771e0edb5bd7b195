import { escapeMrkdwn } from "../mrkdwn.ts";

/** The subcommands, one line each; admin-only ones last. */
export function subcommandLines(command = "/hermes"): string[] {
  return [
    `• \`${command} help\` — this help`,
    `• \`${command} tools\` — the tools you may use, and which need approval`,
    `• \`${command} whoami\` — your id, level and how many tools you may use`,
    `• \`${command} approvals\` — pending approvals you may decide, with their buttons`,
    `• \`${command} runs [user:@x] [status:failed] [since:24h]\` — recent runs with tokens, cost and 👍/👎 (yours; admins anyone's)`,
    `• \`${command} run <id>\` — one run's timeline: model calls, tool calls, approvals (yours; admins any)`,
    `• \`${command} usage\` — your tokens today and this month, and your daily budget`,
    `• \`${command} budget [@user|#channel 200k|off]\` — see the daily token budgets (and where a channel's comes from); admins set them`,
    `• \`${command} profile [set|clear …]\` — this channel's profile: its tools, level, model, budget, streaming and instructions; admins change it (or in the App Home)`,
    `• \`${command} audit [user:@x] [channel:#x] [tool:name] [action:approved] [since:24h] [until:2026-11-01]\` — query the audit log (admins)`,
    `• \`${command} schedule add|list|remove …\` — prompts that run on a schedule (admins)`,
    `• \`${command} model\` — check the configured model: tool calls, tool results, context window, latency (admins)`,
  ];
}

/** `/hermes help`: what Hermes is, how to talk to it, how approvals work, and the subcommands. */
export function helpText(command = "/hermes"): string {
  return [
    "*Hermes* is the team's assistant: it plans with a language model and uses our internal tools (tickets, reports, messages) for you. Every tool call is checked against your permissions and written to an audit log.",
    "",
    "*How to use it*",
    "• In a channel, mention it: `@Hermes open a high-priority ticket: VPN is down`. It answers in the thread; keep talking there.",
    "• Or send it a direct message.",
    "• Risky actions (sending messages, deleting tickets) wait for approval: a card with *Approve* / *Reject* buttons appears in the thread. Only the requester or an admin may decide; typing “yes” does not approve.",
    "• Type `cancel` in the thread to reject the calls it is waiting on.",
    '• Without a model configured, call a tool directly: `run create_ticket title="VPN down" priority=high`.',
    "",
    "*Commands* (answers only you can see)",
    ...subcommandLines(command),
  ].join("\n");
}

/** The answer to an unknown subcommand: one line saying so, then the subcommands. */
export function shortHelp(word: string, command = "/hermes"): string {
  const shown = word.length > 40 ? `${word.slice(0, 39)}…` : word;
  return [
    `I don't know \`${command} ${escapeMrkdwn(shown.replace(/`/g, "'"))}\`. Try one of these:`,
    ...subcommandLines(command),
  ].join("\n");
}
