import type { types } from "@slack/bolt";
import {
  type ChannelProfile,
  DEFAULT_PROFILE_ID,
  MAX_MODEL_NAME,
  MAX_PROFILE_INSTRUCTIONS,
  MAX_PROFILE_TOKENS_PER_DAY,
  modelNameProblem,
  PROFILE_LEVELS,
  type ProfileLevel,
} from "../../profiles/channel-profile.ts";
import { type ProfileChecks, profileValueProblem } from "../commands/profile-change.ts";

/** The modal's `callback_id`: its submission comes back under it. */
export const PROFILE_MODAL_CALLBACK = "hermes.profile.save";
/** The App Home's buttons: "Edit" (value: `default` or a channel id) and "New channel profile". */
export const PROFILE_EDIT_ACTION = "hermes.profile.edit";
export const PROFILE_NEW_ACTION = "hermes.profile.new";
/** Each Edit button's own `action_id` (Slack wants them unique in a block): the action, then the id. */
export const profileEditActionId = (id: string) => `${PROFILE_EDIT_ACTION}.${id}`;
/** Matches every Edit button's `action_id`. */
export const PROFILE_EDIT_ACTIONS = /^hermes\.profile\.edit\.[A-Za-z0-9]+$/;

/** Every input's `action_id`; the `block_id` names the field. */
const VALUE = "value";
/** The block ids of the modal's inputs, one per profile field (and the tool limit's kind). */
export const PROFILE_BLOCKS = {
  channel: "channel",
  instructions: "instructions",
  toolsMode: "tools_mode",
  tools: "tools",
  level: "level",
  model: "model",
  fallbackModel: "fallback_model",
  streaming: "streaming",
  tokensPerDay: "tokens_per_day",
} as const;

/** Slack shows at most 100 options in a select. */
const MAX_OPTIONS = 100;
const UNSET = "unset";

/** What the modal is about, kept in its `private_metadata`: the profile's id (none: a new one) and team. */
export interface ProfileModalState {
  id?: string;
  team?: string;
}

type Option = { text: { type: "plain_text"; text: string }; value: string };
const option = (value: string, text: string): Option => ({ text: { type: "plain_text", text }, value });
const plain = (text: string) => ({ type: "plain_text" as const, text });

const TOOLS_MODES = [
  option("any", "Any tool the person may use (no channel limit)"),
  option("listed", "Only the tools chosen below"),
];
const LEVELS = [option(UNSET, "Not set (user)"), ...PROFILE_LEVELS.map((l) => option(l, l))];
const STREAMING = [
  option(UNSET, "As HERMES_STREAMING"),
  option("on", "On: answers stream as written"),
  option("off", "Off: answers arrive whole"),
];

/**
 * The profile modal: a channel picker for a new profile (the profile's channel, or the default, is
 * named when editing one), then a field for each part of the profile. `file`: `HERMES_PROFILES` is in
 * charge, which the modal says first (saving is refused with that sentence).
 */
export function profileModalView(o: {
  state: ProfileModalState;
  profile: ChannelProfile | undefined;
  tools: readonly string[];
  fileSentence?: string | undefined;
}): types.ModalView {
  const p = o.profile ?? {};
  const { id } = o.state;
  const toolOptions = [...o.tools]
    .sort()
    .slice(0, MAX_OPTIONS)
    .map((name) => option(name, name));
  const chosen = toolOptions.filter((t) => p.tools?.includes(t.value));
  const blocks: types.KnownBlock[] = [];
  if (o.fileSentence)
    blocks.push({ type: "section", text: { type: "mrkdwn", text: `:lock: ${o.fileSentence}` } });
  if (id === undefined) {
    blocks.push({
      type: "input",
      block_id: PROFILE_BLOCKS.channel,
      label: plain("Channel"),
      element: {
        type: "conversations_select",
        action_id: VALUE,
        placeholder: plain("Choose a channel"),
        filter: { include: ["public", "private"], exclude_bot_users: true },
      },
    });
  } else {
    const whose =
      id === DEFAULT_PROFILE_ID
        ? "*The default profile* (for channels without their own)"
        : `*Profile of <#${id}>*`;
    blocks.push({ type: "section", text: { type: "mrkdwn", text: whose } });
  }
  blocks.push(
    {
      type: "input",
      block_id: PROFILE_BLOCKS.instructions,
      optional: true,
      label: plain("Instructions added to the system prompt"),
      element: {
        type: "plain_text_input",
        action_id: VALUE,
        multiline: true,
        max_length: MAX_PROFILE_INSTRUCTIONS,
        ...(p.instructions ? { initial_value: p.instructions } : {}),
      },
    },
    {
      type: "input",
      block_id: PROFILE_BLOCKS.toolsMode,
      label: plain("Tools runs here may call"),
      element: {
        type: "static_select",
        action_id: VALUE,
        options: TOOLS_MODES,
        initial_option: TOOLS_MODES[p.tools === undefined ? 0 : 1]!,
      },
    },
    {
      type: "input",
      block_id: PROFILE_BLOCKS.tools,
      optional: true,
      label: plain("Allowed tools (none chosen: no tools)"),
      hint: plain('Used when "Only the tools chosen below" is picked above. Policy enforces it.'),
      element: {
        type: "multi_static_select",
        action_id: VALUE,
        placeholder: plain("Choose tools"),
        options: toolOptions,
        ...(chosen.length > 0 ? { initial_options: chosen } : {}),
      },
    },
    {
      type: "input",
      block_id: PROFILE_BLOCKS.level,
      label: plain("Level of people without their own"),
      element: {
        type: "static_select",
        action_id: VALUE,
        options: LEVELS,
        initial_option: LEVELS.find((l) => l.value === (p.level ?? UNSET))!,
      },
    },
    {
      type: "input",
      block_id: PROFILE_BLOCKS.model,
      optional: true,
      label: plain("Model (empty: HERMES_MODEL)"),
      element: {
        type: "plain_text_input",
        action_id: VALUE,
        max_length: MAX_MODEL_NAME,
        ...(p.model ? { initial_value: p.model } : {}),
      },
    },
    {
      type: "input",
      block_id: PROFILE_BLOCKS.fallbackModel,
      optional: true,
      label: plain("Fallback model (empty: HERMES_FALLBACK_MODEL)"),
      element: {
        type: "plain_text_input",
        action_id: VALUE,
        max_length: MAX_MODEL_NAME,
        ...(p.fallbackModel ? { initial_value: p.fallbackModel } : {}),
      },
    },
    {
      type: "input",
      block_id: PROFILE_BLOCKS.streaming,
      label: plain("Streaming"),
      element: {
        type: "static_select",
        action_id: VALUE,
        options: STREAMING,
        initial_option: STREAMING.find((s) => s.value === streamingValue(p.streaming))!,
      },
    },
    {
      type: "input",
      block_id: PROFILE_BLOCKS.tokensPerDay,
      optional: true,
      label: plain("Daily token budget (empty: the default; 0: no limit)"),
      hint: plain("A budget set with /hermes budget #channel wins over this one."),
      element: {
        type: "number_input",
        action_id: VALUE,
        is_decimal_allowed: false,
        min_value: "0",
        ...(p.tokensPerDay !== undefined ? { initial_value: String(p.tokensPerDay) } : {}),
      },
    },
  );
  return {
    type: "modal",
    callback_id: PROFILE_MODAL_CALLBACK,
    title: plain(id === undefined ? "New channel profile" : "Channel profile"),
    submit: plain("Save"),
    close: plain("Cancel"),
    private_metadata: JSON.stringify(o.state),
    blocks,
  };
}

function streamingValue(streaming: boolean | undefined): string {
  return streaming === undefined ? UNSET : streaming ? "on" : "off";
}

/** The modal's `private_metadata`, read back (anything else: a new profile in the single workspace). */
export function readModalState(metadata: string | undefined): ProfileModalState {
  try {
    const parsed = JSON.parse(metadata ?? "{}") as Record<string, unknown>;
    return {
      ...(typeof parsed.id === "string" ? { id: parsed.id } : {}),
      ...(typeof parsed.team === "string" ? { team: parsed.team } : {}),
    };
  } catch {
    return {};
  }
}

/** What a person entered: `values[block_id][action_id]`, as a view submission carries it. */
export type ModalValues = Record<
  string,
  Record<
    string,
    {
      value?: string | null;
      selected_option?: { value: string } | null;
      selected_options?: Array<{ value: string }>;
      selected_conversation?: string | null;
    }
  >
>;

/** A submission read: the channel (for a new profile) and the whole profile, or an error per block. */
export type ProfileSubmission =
  | { ok: true; channelId: string | undefined; profile: ChannelProfile }
  | { ok: false; errors: Record<string, string> };

/** Reads and checks a submission of the modal; each problem is a sentence on its own block. */
export function readProfileSubmission(
  state: ProfileModalState,
  values: ModalValues,
  checks: ProfileChecks,
): ProfileSubmission {
  const at = (block: string) => values[block]?.[VALUE];
  const text = (block: string) => at(block)?.value?.trim() || undefined;
  const errors: Record<string, string> = {};
  let channelId: string | undefined;
  if (state.id === undefined) {
    channelId = at(PROFILE_BLOCKS.channel)?.selected_conversation ?? undefined;
    if (!channelId) errors[PROFILE_BLOCKS.channel] = "Choose the channel this profile is for.";
    else if (!/^[CG][A-Z0-9]{2,}$/.test(channelId))
      errors[PROFILE_BLOCKS.channel] = "Choose a channel: direct messages get the default profile.";
  }
  const profile: ChannelProfile = {};
  const instructions = text(PROFILE_BLOCKS.instructions);
  if (instructions) profile.instructions = instructions;
  if (at(PROFILE_BLOCKS.toolsMode)?.selected_option?.value === "listed")
    profile.tools = (at(PROFILE_BLOCKS.tools)?.selected_options ?? []).map((o) => o.value);
  const level = at(PROFILE_BLOCKS.level)?.selected_option?.value;
  if (level && level !== UNSET) {
    if ((PROFILE_LEVELS as readonly string[]).includes(level)) profile.level = level as ProfileLevel;
    else errors[PROFILE_BLOCKS.level] = `A channel can give people ${PROFILE_LEVELS.join(" or ")}.`;
  }
  for (const field of ["model", "fallbackModel"] as const) {
    const name = text(PROFILE_BLOCKS[field]);
    if (!name) continue;
    const problem = modelNameProblem(name);
    if (problem) errors[PROFILE_BLOCKS[field]] = problem;
    else profile[field] = name;
  }
  const streaming = at(PROFILE_BLOCKS.streaming)?.selected_option?.value;
  if (streaming === "on" || streaming === "off") profile.streaming = streaming === "on";
  const tokens = text(PROFILE_BLOCKS.tokensPerDay);
  if (tokens !== undefined) {
    const n = Number(tokens);
    if (!/^\d+$/.test(tokens) || !Number.isSafeInteger(n) || n > MAX_PROFILE_TOKENS_PER_DAY)
      errors[PROFILE_BLOCKS.tokensPerDay] = "Write a whole number of tokens, 0 or more (0: no limit).";
    else profile.tokensPerDay = n;
  }
  for (const field of ["instructions", "tools", "model", "fallbackModel"] as const) {
    const block = field === "tools" ? PROFILE_BLOCKS.tools : PROFILE_BLOCKS[field];
    if (errors[block]) continue;
    const problem = profileValueProblem(field, profile[field] ?? null, checks);
    if (problem) errors[block] = problem.replace(/`/g, "");
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, channelId, profile };
}

/** The first input block of the modal for `state`: where an error about the whole profile goes. */
export function firstInputBlock(state: ProfileModalState): string {
  return state.id === undefined ? PROFILE_BLOCKS.channel : PROFILE_BLOCKS.instructions;
}
