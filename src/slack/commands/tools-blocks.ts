import type { Access } from "../../policy/resolve-access.ts";
import type { Tool } from "../../tools/define-tool.ts";
import { MESSAGE_TEXT_BUDGET, type SlackMessagePayload } from "../answer-blocks.ts";
import { escapeMrkdwn } from "../mrkdwn.ts";
import { type Block, context, fitLines, linesToSections, oneLine, section } from "./block-builders.ts";

const DESCRIPTION_MAX = 140;

/** The tools `access` allows, by name, as one mrkdwn line each: name, level, approval, description. */
export function toolLines(tools: readonly Tool[], access: Pick<Access, "allowed">): string[] {
  return tools
    .filter((t) => access.allowed.has(t.name))
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((t) => {
      const description = escapeMrkdwn(oneLine(t.description.split("\n")[0] ?? "", DESCRIPTION_MAX));
      return `• \`${t.name}\` — ${t.level} · ${approvalLabel(t)}${description ? ` — ${description}` : ""}`;
    });
}

/** `/hermes tools`: what the caller may use, within one message's limits. */
export function toolsMessage(
  tools: readonly Tool[],
  access: Pick<Access, "allowed" | "level">,
): SlackMessagePayload {
  const all = toolLines(tools, access);
  if (all.length === 0) {
    return {
      text: "You may not use any tools.",
      blocks: [section("You may not use any tools. Ask an admin.")],
    };
  }
  const { lines, omitted } = fitLines(all, MESSAGE_TEXT_BUDGET - 1000);
  const blocks: Block[] = [
    section(`*Tools you may use* (${all.length}, your level: *${access.level}*)`),
    ...linesToSections(lines),
  ];
  if (omitted > 0) blocks.push(context(`…and ${omitted} more.`));
  blocks.push(
    context(
      "Tools that need approval post an Approve / Reject card first; nothing runs until someone allowed decides.",
    ),
  );
  return { text: `You may use ${all.length} tools.`, blocks };
}

function approvalLabel(tool: Tool): string {
  if (tool.approval === "never") return "no approval";
  if (tool.approval === "always") return "*needs approval*";
  return "*approval for some arguments*";
}
