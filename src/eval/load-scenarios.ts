import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { parse, YAMLParseError } from "yaml";
import type { z } from "zod";
import { type Scenario, scenarioSchema } from "./scenario-schema.ts";

/** A scenario file that cannot be used: every problem, each naming the file and the field. */
export class ScenarioFileError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Some scenario files are invalid:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ScenarioFileError";
    this.problems = problems;
  }
}

export interface LoadedScenario extends Scenario {
  /** The file it came from (as given or found). */
  file: string;
}

/** `a.b[0].c` for a zod issue path. */
function fieldPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) out += typeof part === "number" ? `[${part}]` : `${out ? "." : ""}${String(part)}`;
  return out || "(top level)";
}

function issueText(file: string, issue: z.core.$ZodIssue): string {
  return `${file}: ${fieldPath(issue.path)}: ${issue.message}`;
}

/** Regexes a scenario uses must compile; said per field, not when the run reaches them. */
function regexProblems(file: string, scenario: Scenario): string[] {
  const problems: string[] = [];
  const check = (where: string, args: Record<string, unknown> | undefined) => {
    for (const [name, m] of Object.entries(args ?? {})) {
      if (m && typeof m === "object" && "regex" in m) {
        try {
          new RegExp(String(m.regex), (m as { flags?: string }).flags);
        } catch (err) {
          problems.push(`${file}: ${where}.args.${name}.regex: ${(err as Error).message}`);
        }
      }
    }
  };
  for (const [i, c] of scenario.expect.calls.entries()) check(`expect.calls[${i}]`, c.args);
  for (const [i, c] of scenario.expect.forbidden.entries())
    if (typeof c !== "string") check(`expect.forbidden[${i}]`, c.args);
  return problems;
}

/** Parses one scenario file's text; throws `ScenarioFileError` naming the file and each bad field. */
export function parseScenario(file: string, text: string): LoadedScenario {
  let raw: unknown;
  try {
    raw = parse(text, { prettyErrors: true, uniqueKeys: true });
  } catch (err) {
    const where = err instanceof YAMLParseError && err.linePos ? ` (line ${err.linePos[0].line})` : "";
    const first = (err as Error).message.split("\n")[0];
    throw new ScenarioFileError([`${file}: not valid YAML${where}: ${first}`]);
  }
  const parsed = scenarioSchema.safeParse(raw ?? {});
  if (!parsed.success) throw new ScenarioFileError(parsed.error.issues.map((i) => issueText(file, i)));
  const problems = regexProblems(file, parsed.data);
  if (problems.length) throw new ScenarioFileError(problems);
  return { ...parsed.data, file };
}

/**
 * The scenarios in the given files and folders (a folder: its `*.yaml` / `*.yml`, not its
 * sub-folders such as `drafts/`), in name order. Every bad file is reported at once; names must be
 * unique (results are keyed by name).
 */
export function loadScenarios(paths: readonly string[]): LoadedScenario[] {
  const files: string[] = [];
  const problems: string[] = [];
  for (const path of paths) {
    let isDir: boolean;
    try {
      isDir = statSync(path).isDirectory();
    } catch {
      problems.push(`${path}: no such file or folder`);
      continue;
    }
    if (!isDir) files.push(path);
    else
      files.push(
        ...readdirSync(path)
          .filter((f) => /\.ya?ml$/.test(f))
          .sort()
          .map((f) => join(path, f)),
      );
  }
  const scenarios: LoadedScenario[] = [];
  const seen = new Map<string, string>();
  for (const file of files) {
    try {
      const s = parseScenario(file, readFileSync(file, "utf8"));
      const other = seen.get(s.name);
      if (other) problems.push(`${file}: name: "${s.name}" is already used by ${basename(other)}`);
      seen.set(s.name, file);
      scenarios.push(s);
    } catch (err) {
      if (err instanceof ScenarioFileError) problems.push(...err.problems);
      else problems.push(`${file}: ${(err as Error).message}`);
    }
  }
  if (problems.length) throw new ScenarioFileError(problems);
  if (scenarios.length === 0) throw new ScenarioFileError([`no scenario files in ${paths.join(", ")}`]);
  return scenarios.sort((a, b) => a.name.localeCompare(b.name));
}
