import type { types } from "@slack/bolt";
import { isSlackId, slackRef } from "../agent/command/result-sentences/slack-refs.ts";
import { canonicalJson } from "../core/canonical-json.ts";
import { redactSecrets } from "../policy/redact.ts";
import { fallbackText } from "./answer-blocks.ts";
import { escapeMrkdwn } from "./mrkdwn.ts";

export const APPROVE_ACTION = "hermes.approve";
export const REJECT_ACTION = "hermes.reject";

export interface CardApproval {
  id: string;
  tool: string;
  args: unknown;
  argsSha256: string;
  requesterId: string;
  expiresAt: Date;
  dangerous?: boolean;
}

export type CardState =
  | { kind: "pending" }
  | { kind: "decided"; status: "approved" | "rejected" | "expired"; by?: string; at: Date; outcome?: string };

const ARGS_SECTION = 2800;
const MAX_ARG_SECTIONS = 3;

/**
 * The Approve / Reject card. Arguments are rendered from the stored call, deterministically (sorted
 * keys, pretty JSON, escaped), never from a model summary. Block ids change with the state, so an
 * update in place never reuses a block id. Credential-shaped text in the arguments and the outcome
 * (tokens, keys, passwords) shows as `[secret]` on every surface that renders a card; configured
 * secret values are removed before, by `toCardApproval`.
 */
export function approvalCard(
  a: CardApproval,
  state: CardState,
): { text: string; blocks: types.KnownBlock[] } {
  const v = state.kind === "pending" ? "p" : `${state.status[0]}${state.outcome ? "o" : ""}`;
  const id = (name: string) => `${name}:${a.id}:${v}`.slice(0, 255);
  const header =
    state.kind === "pending"
      ? `:raised_hand: *Approval needed* — <@${a.requesterId}> asked me to run \`${a.tool}\``
      : `${icon(state.status)} *${title(state.status)}* — \`${a.tool}\` requested by <@${a.requesterId}>`;
  const blocks: types.KnownBlock[] = [
    { type: "section", block_id: id("head"), text: { type: "mrkdwn", text: header } },
  ];
  for (const [i, text] of argSections(a.args).entries()) {
    blocks.push({ type: "section", block_id: id(`args${i}`), text: { type: "mrkdwn", text } });
  }
  const named = namedArgs(a.args);
  if (named)
    blocks.push({ type: "context", block_id: id("names"), elements: [{ type: "mrkdwn", text: named }] });

  if (state.kind === "pending") {
    blocks.push({
      type: "context",
      block_id: id("meta"),
      elements: [
        {
          type: "mrkdwn",
          text: `Expires ${slackDate(a.expiresAt)} · approval \`${a.id}\` · args hmac \`${a.argsSha256.replace(/^hmac-sha256:/, "").slice(0, 12)}\``,
        },
      ],
    });
    blocks.push({
      type: "actions",
      block_id: id("actions"),
      elements: [
        {
          type: "button",
          action_id: APPROVE_ACTION,
          style: "primary",
          text: { type: "plain_text", text: "Approve", emoji: true },
          value: a.id,
          ...(a.dangerous
            ? {
                confirm: {
                  title: { type: "plain_text", text: `Run ${a.tool}?`.slice(0, 100) },
                  text: {
                    type: "mrkdwn",
                    text: `This runs \`${a.tool}\` with exactly the arguments shown. It cannot be undone.`.slice(
                      0,
                      300,
                    ),
                  },
                  confirm: { type: "plain_text", text: "Approve" },
                  deny: { type: "plain_text", text: "Cancel" },
                  style: "danger",
                },
              }
            : {}),
        },
        {
          type: "button",
          action_id: REJECT_ACTION,
          style: "danger",
          text: { type: "plain_text", text: "Reject", emoji: true },
          value: a.id,
        },
      ],
    });
  } else {
    const who = state.by ? ` by <@${state.by}>` : "";
    const lines = [`${title(state.status)}${who} ${slackDate(state.at)} · approval \`${a.id}\``];
    if (state.outcome) lines.push(redactSecrets(state.outcome));
    blocks.push({
      type: "context",
      block_id: id("meta"),
      elements: [{ type: "mrkdwn", text: lines.join("\n").slice(0, 3000) }],
    });
  }
  const text =
    state.kind === "pending"
      ? `Approval needed: <@${a.requesterId}> asked me to run ${a.tool}`
      : `${title(state.status)}: ${a.tool}${state.by ? ` by <@${state.by}>` : ""}`;
  return { text: fallbackText(text), blocks };
}

function argSections(args: unknown): string[] {
  const pretty = JSON.stringify(JSON.parse(canonicalJson(args ?? {})), null, 2);
  const escaped = escapeMrkdwn(redactSecrets(pretty));
  const out: string[] = [];
  for (let i = 0; i < escaped.length && out.length < MAX_ARG_SECTIONS; i += ARGS_SECTION) {
    out.push(`\`\`\`${escaped.slice(i, i + ARGS_SECTION)}\`\`\``);
  }
  const shown = ARGS_SECTION * MAX_ARG_SECTIONS;
  if (escaped.length > shown)
    out.push(`_…and ${escaped.length - shown} more characters of arguments (the audit log has them all)._`);
  return out;
}

/** A Slack user or channel reference as written in arguments: `<@U…>`, `<#C…>`, `<#C…|name>`. */
const REFERENCE = /^<(?:@[UW][A-Z0-9]+|#[CGD][A-Z0-9]+)(?:\|[^<>]*)?>$/;

/**
 * The people and channels the arguments name, as Slack references (shown as names): the code block
 * above keeps the exact ids, which Slack does not turn into names there. Top-level values only;
 * a user group is left as its id in the code block.
 */
function namedArgs(args: unknown): string | undefined {
  if (!args || typeof args !== "object" || Array.isArray(args)) return undefined;
  const parts: string[] = [];
  for (const [key, value] of Object.entries(args).sort(([x], [y]) => (x < y ? -1 : 1))) {
    const refs = (Array.isArray(value) ? value : [value])
      // A user group stays an id (`isSlackId` is people and channels): its reference would notify it.
      .filter((v): v is string => typeof v === "string" && (isSlackId(v) || REFERENCE.test(v)))
      .map((v) => (REFERENCE.test(v) ? v : slackRef(v)));
    if (refs.length) parts.push(`\`${escapeMrkdwn(key)}\` ${refs.slice(0, 10).join(", ")}`);
  }
  return parts.length ? parts.join(" · ").slice(0, 3000) : undefined;
}

function title(status: "approved" | "rejected" | "expired"): string {
  return status === "approved" ? "Approved" : status === "rejected" ? "Rejected" : "Expired";
}

function icon(status: "approved" | "rejected" | "expired"): string {
  return status === "approved" ? ":white_check_mark:" : status === "rejected" ? ":x:" : ":hourglass:";
}

/** `<!date^…>` renders in each reader's own time zone; the fallback is UTC. */
export function slackDate(d: Date): string {
  const unix = Math.floor(d.getTime() / 1000);
  return `<!date^${unix}^{date_short_pretty} {time}|${d.toISOString().replace("T", " ").slice(0, 16)} UTC>`;
}
