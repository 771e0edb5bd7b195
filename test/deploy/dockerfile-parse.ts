/**
 * A Dockerfile read the way BuildKit reads one, as far as Hermes' Dockerfile needs: `#` comment lines
 * (also between continuation lines), `\` line continuations, instructions case-insensitive, exec
 * (JSON array) or shell form, `--flag=value` options, global `ARG`s substituted into `FROM`, and the
 * instructions grouped by stage. No Docker daemon is needed: the tests check the file, not an image.
 */

export interface Instruction {
  /** Upper-cased: `FROM`, `RUN`, `COPY`, … */
  keyword: string;
  /** Everything after the keyword, continuation lines joined with a space (flags included). */
  raw: string;
  /** 1-based line of the keyword. */
  line: number;
  /** Leading `--name=value` options (`--from=deps`, `--interval=30s`); a bare `--name` is `"true"`. */
  flags: Record<string, string>;
  /** After the flags: the JSON array of the exec form, or undefined for the shell form. */
  exec: string[] | undefined;
  /** After the flags, as written (the shell form's command line, or the JSON text). */
  rest: string;
}

export interface Stage {
  /** The `FROM` image with global `ARG` defaults substituted. */
  image: string;
  /** `AS name`, if any. */
  name: string | undefined;
  from: Instruction;
  /** The stage's instructions after its `FROM`. */
  body: Instruction[];
}

export interface Dockerfile {
  instructions: Instruction[];
  /** `ARG`s before the first `FROM`, with their defaults (undefined: none). */
  globalArgs: Map<string, string | undefined>;
  stages: Stage[];
}

export function parseDockerfile(text: string): Dockerfile {
  const instructions = joinLines(text).map(toInstruction);
  const globalArgs = new Map<string, string | undefined>();
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === "FROM") {
      const [image = "", as, name] = instruction.rest.split(/\s+/);
      stages.push({
        image: substitute(image, globalArgs),
        name: as?.toUpperCase() === "AS" ? name : undefined,
        from: instruction,
        body: [],
      });
    } else if (stages.length === 0) {
      if (instruction.keyword === "ARG") {
        const [name = "", value] = splitAssignment(instruction.rest);
        globalArgs.set(name, value);
      }
    } else {
      stages.at(-1)!.body.push(instruction);
    }
  }
  return { instructions, globalArgs, stages };
}

/** `ENV` instructions of a stage as one map (`ENV A=1 B="two"`, or the old `ENV A 1`). */
export function stageEnv(stage: Stage): Map<string, string> {
  const env = new Map<string, string>();
  for (const i of stage.body.filter((x) => x.keyword === "ENV")) {
    if (!i.rest.includes("=")) {
      const [name = "", ...value] = i.rest.split(/\s+/);
      env.set(name, value.join(" "));
      continue;
    }
    for (const pair of i.rest.match(/[^\s=]+=("[^"]*"|'[^']*'|\S*)/g) ?? []) {
      const [name = "", value = ""] = splitAssignment(pair);
      env.set(name, value);
    }
  }
  return env;
}

export interface Copy {
  instruction: Instruction;
  /** `--from=<stage>`, or undefined for the build context. */
  from: string | undefined;
  sources: string[];
  dest: string;
}

/** A stage's `COPY`/`ADD` instructions with their sources and destination. */
export function stageCopies(stage: Stage): Copy[] {
  return stage.body
    .filter((i) => i.keyword === "COPY" || i.keyword === "ADD")
    .map((instruction) => {
      const parts = instruction.exec ?? instruction.rest.split(/\s+/).filter(Boolean);
      return {
        instruction,
        from: instruction.flags.from,
        sources: parts.slice(0, -1),
        dest: parts.at(-1) ?? "",
      };
    });
}

/** The stage's `WORKDIR` at its end (Docker's default is `/`). */
export function stageWorkdir(stage: Stage): string {
  let dir = "/";
  for (const i of stage.body.filter((x) => x.keyword === "WORKDIR")) {
    dir = i.rest.startsWith("/") ? i.rest : `${dir.replace(/\/$/, "")}/${i.rest}`;
  }
  return dir;
}

// Logical lines: comments and empty lines dropped (also inside a continued instruction, as BuildKit
// does), lines ending in `\` joined with the next.
function joinLines(text: string): Array<{ text: string; line: number }> {
  const out: Array<{ text: string; line: number }> = [];
  let current: { text: string; line: number } | undefined;
  text.split(/\r?\n/).forEach((rawLine, index) => {
    const trimmed = rawLine.trim();
    if (trimmed.startsWith("#") || trimmed === "") return;
    const continues = /\\\s*$/.test(rawLine);
    const body = continues ? rawLine.replace(/\\\s*$/, "") : rawLine;
    if (current) current.text += ` ${body.trim()}`;
    else current = { text: body.trim(), line: index + 1 };
    if (!continues) {
      out.push({ ...current, text: current.text.trim() });
      current = undefined;
    }
  });
  if (current) out.push(current);
  return out;
}

function toInstruction({ text, line }: { text: string; line: number }): Instruction {
  const match = /^(\S+)\s*(.*)$/.exec(text);
  const keyword = (match?.[1] ?? "").toUpperCase();
  const raw = match?.[2] ?? "";
  const flags: Record<string, string> = {};
  let rest = raw;
  for (;;) {
    const flag = /^--([a-z-]+)(?:=(\S*))?\s*/.exec(rest);
    if (!flag) break;
    flags[flag[1]!] = flag[2] ?? "true";
    rest = rest.slice(flag[0].length);
  }
  // HEALTHCHECK's command is an instruction of its own: `CMD [...]` after the options.
  const command = keyword === "HEALTHCHECK" ? rest.replace(/^CMD\s+/i, "") : rest;
  return { keyword, raw, line, flags, exec: execForm(command), rest };
}

function execForm(text: string): string[] | undefined {
  if (!text.startsWith("[")) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) && parsed.every((x) => typeof x === "string") ? parsed : undefined;
  } catch {
    return undefined; // not valid JSON: Docker runs it in the shell form
  }
}

function splitAssignment(text: string): [string, string | undefined] {
  const at = text.indexOf("=");
  if (at < 0) return [text.trim(), undefined];
  return [
    text.slice(0, at).trim(),
    text
      .slice(at + 1)
      .trim()
      .replace(/^(["'])(.*)\1$/, "$2"),
  ];
}

function substitute(text: string, args: Map<string, string | undefined>): string {
  return text.replace(/\$\{(\w+)\}|\$(\w+)/g, (whole, a: string | undefined, b: string | undefined) => {
    const value = args.get((a ?? b)!);
    return value ?? whole;
  });
}
