import { readFileSync } from "node:fs";
import { errorMessage, HermesError } from "../core/errors.ts";
import { parseYaml } from "../core/yaml.ts";
import {
  type ChannelProfile,
  channelProfileSchema,
  DEFAULT_PROFILE_ID,
  FIELD_KEYS,
  unknownTools,
} from "./channel-profile.ts";

/** A channel id as Slack writes one (`C…` public or private, `G…` older private, `D…` a DM). */
const CHANNEL_ID = /^[CGD][A-Z0-9]{2,}$/;

/**
 * `HERMES_PROFILES`: a YAML map from a channel id (or `default`) to its profile:
 *
 * ```yaml
 * default:
 *   level: user
 * C0123SUPPORT:
 *   instructions: Answer as the support desk. Always include the ticket id.
 *   tools: [search_tickets, get_ticket, create_ticket]
 *   level: viewer
 *   model: qwen2.5:14b-instruct
 *   fallback_model: qwen2.5:7b-instruct
 *   tokens_per_day: 2000000
 *   streaming: off
 * ```
 *
 * Every problem is reported at once (`config_invalid`), so Hermes refuses to start with a file it
 * would half apply. Tool names are checked once the tools are known (`unknownToolProblems`).
 */
export function parseProfilesYaml(text: string, file: string): Map<string, ChannelProfile> {
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (err) {
    throw profilesError(file, [`not valid YAML: ${errorMessage(err)}`]);
  }
  if (data === null || data === undefined) return new Map();
  if (typeof data !== "object" || Array.isArray(data))
    throw profilesError(file, ["must be a YAML map from a channel id (or default) to its profile"]);
  const out = new Map<string, ChannelProfile>();
  const problems: string[] = [];
  for (const [id, raw] of Object.entries(data)) {
    if (id !== DEFAULT_PROFILE_ID && !CHANNEL_ID.test(id)) {
      problems.push(`${id}: not a channel id (like C0123ABCD) or "default"`);
      continue;
    }
    const parsed = channelProfileSchema.safeParse(raw ?? {});
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const field = issue.path.length ? issue.path.map(String).join(".") : "(profile)";
        const message =
          issue.code === "unrecognized_keys"
            ? `unknown field ${issue.keys.join(", ")} (allowed: ${Object.values(FIELD_KEYS).join(", ")})`
            : issue.message;
        problems.push(`${id}: ${field}: ${message}`);
      }
      continue;
    }
    out.set(id, parsed.data);
  }
  if (problems.length > 0) throw profilesError(file, problems);
  return out;
}

/** Reads and parses the file; an unreadable file is `config_invalid` naming it. */
export function loadProfilesFile(file: string): Map<string, ChannelProfile> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw profilesError(file, [`cannot be read: ${errorMessage(err)}`]);
  }
  return parseProfilesYaml(text, file);
}

/**
 * One line per allow-list entry no registered tool has (`C0123: tools: no tool is named x`): such an
 * entry matches nothing, so the channel simply lacks that tool; start-up warns so a typo is seen.
 */
export function unknownToolProblems(
  profiles: ReadonlyMap<string, ChannelProfile>,
  known: ReadonlySet<string>,
): string[] {
  const out: string[] = [];
  for (const [id, profile] of profiles) {
    const unknown = unknownTools(profile.tools, known);
    if (unknown.length > 0) out.push(`${id}: tools: no tool is named ${unknown.join(", ")}`);
  }
  return out;
}

function profilesError(file: string, problems: string[]): HermesError {
  return new HermesError(
    "config_invalid",
    `HERMES_PROFILES ${file} is invalid:\n${problems.map((p) => `  - ${p}`).join("\n")}`,
  );
}
