import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseDockerfile, stageCopies, stageEnv } from "./dockerfile-parse.ts";
import {
  checkDockerfile,
  checkDockerfileFile,
  RUNTIME_CONTEXT_PATHS,
  type RuleId,
} from "./dockerfile-rules.ts";

const root = join(import.meta.dirname, "..", "..");
const dockerfile = readFileSync(join(root, "Dockerfile"), "utf8");
const nodeVersion = readFileSync(join(root, ".nvmrc"), "utf8").trim().replace(/^v/, "");

/** There is no Docker daemon here: the image is checked on its Dockerfile, by the rules it must keep. */
describe("the Dockerfile", () => {
  it("keeps every rule of the image", () => {
    expect(checkDockerfile(dockerfile, nodeVersion)).toEqual([]);
  });

  it("builds on the Node version .nvmrc names", () => {
    const file = parseDockerfile(dockerfile);
    expect(file.globalArgs.get("NODE_VERSION")).toBe(nodeVersion);
    expect(file.stages.map((s) => s.image)).toEqual([
      `node:${nodeVersion}-bookworm-slim`,
      `node:${nodeVersion}-bookworm-slim`,
    ]);
  });

  it("keeps out of the build context what the image never copies, and lets in what it does", () => {
    const ignored = readFileSync(join(root, ".dockerignore"), "utf8")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith("#"));
    for (const path of ["node_modules", ".git", ".env", ".hermes", ".ci", "test"])
      expect(ignored).toContain(path);
    const copied = stageCopies(parseDockerfile(dockerfile).stages[0]!)
      .concat(stageCopies(parseDockerfile(dockerfile).stages.at(-1)!))
      .filter((c) => c.from === undefined)
      .flatMap((c) => c.sources);
    expect(copied).toEqual(expect.arrayContaining(RUNTIME_CONTEXT_PATHS));
    for (const source of copied) expect(ignored).not.toContain(source);
  });
});

describe("the Dockerfile parser", () => {
  it("joins continuation lines, skips comments and blank lines inside them, reads flags and the exec form", () => {
    const file = parseDockerfile(
      [
        "# syntax=docker/dockerfile:1",
        "ARG V=1.2",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: Dockerfile ARG syntax, not a template
        "from node:${V}-slim as build",
        "RUN apt-get update \\",
        "  # a comment inside the command",
        "",
        "  && apt-get install -y tini",
        "FROM node:$V-slim",
        'ENV A=1 B="two words" \\',
        "  C=3",
        "ENV OLD style value",
        "COPY --from=build --chown=node:node /app/node_modules ./node_modules",
        'HEALTHCHECK --interval=5s CMD ["node", "-e", "1"]',
        'CMD ["node", "src/main.ts"]',
        "ENTRYPOINT tini -- node",
      ].join("\n"),
    );
    expect(file.stages.map((s) => [s.image, s.name])).toEqual([
      ["node:1.2-slim", "build"],
      ["node:1.2-slim", undefined],
    ]);
    expect(file.stages[0]!.body[0]).toMatchObject({
      keyword: "RUN",
      line: 4,
      rest: "apt-get update && apt-get install -y tini",
    });
    const runtime = file.stages[1]!;
    expect([...stageEnv(runtime)]).toEqual([
      ["A", "1"],
      ["B", "two words"],
      ["C", "3"],
      ["OLD", "style value"],
    ]);
    expect(stageCopies(runtime)).toMatchObject([
      { from: "build", sources: ["/app/node_modules"], dest: "./node_modules" },
    ]);
    const byKeyword = (k: string) => runtime.body.find((i) => i.keyword === k)!;
    expect(byKeyword("HEALTHCHECK")).toMatchObject({ flags: { interval: "5s" }, exec: ["node", "-e", "1"] });
    expect(byKeyword("CMD").exec).toEqual(["node", "src/main.ts"]);
    expect(byKeyword("ENTRYPOINT").exec).toBeUndefined();
  });
});

/** Each rule, broken on purpose in a copy of the real Dockerfile: the checker must say so. */
const broken: Array<[RuleId, (text: string) => string]> = [
  ["node-version", (t) => t.replace(`ARG NODE_VERSION=${nodeVersion}`, "ARG NODE_VERSION=24.0.0")],
  [
    "base-image",
    (t) =>
      t.replace(/FROM node:\$\{NODE_VERSION\}-bookworm-slim AS runtime/, "FROM node:24-alpine AS runtime"),
  ],
  ["multi-stage", (t) => t.replace(/^COPY --from=deps .*$/m, "")],
  ["multi-stage", (t) => t.replace("npm ci --omit=dev", "npm ci")],
  ["npm-ci-only", (t) => t.replace("npm ci --omit=dev", "npm install --omit=dev")],
  ["no-bundled-node", (t) => t.replace(/^ {2}&& rm -rf node_modules\/node-linux-\*.*\n/m, "")],
  [
    "no-bundled-node",
    (t) => t.replace(/(rm -rf node_modules\/node-linux-\*) node_modules\/\.bin\/node/, "$1"),
  ],
  ["runtime-copies", (t) => t.replace("COPY src ./src", "COPY . .")],
  ["runtime-copies", (t) => t.replace("COPY drizzle ./drizzle", "COPY drizzle test ./")],
  ["runtime-copies", (t) => t.replace("COPY src ./src", "ADD src ./src")],
  ["non-root", (t) => t.replace(/^USER node$/m, "")],
  ["non-root", (t) => t.replace(/^USER node$/m, "USER root")],
  ["non-root", (t) => t.replace(/^USER node\n/m, "").concat("USER node\n")],
  ["data-dir", (t) => t.replace("chown node:node /data", "chown root /data")],
  ["data-dir", (t) => t.replace("HERMES_DATA_DIR=/data", "HERMES_DATA_DIR=.hermes")],
  ["init", (t) => t.replace(/^ENTRYPOINT .*$/m, "")],
  [
    "init",
    (t) => t.replace("install -y --no-install-recommends tini", "install -y --no-install-recommends procps"),
  ],
  ["cmd", (t) => t.replace(/^CMD .*$/m, 'CMD ["npm", "start"]')],
  ["cmd", (t) => t.replace(/^CMD .*$/m, "CMD node src/main.ts")],
  // Not what npm start runs (its V8 flags dropped).
  ["cmd", (t) => t.replace(/^CMD .*$/m, 'CMD ["node", "src/main.ts"]')],
  ["healthcheck", (t) => t.replace(/^HEALTHCHECK[^\n]*\\\n[^\n]*\n/m, "")],
  ["healthcheck", (t) => t.replace(/^HEALTHCHECK[^\n]*\\\n[^\n]*\n/m, "HEALTHCHECK NONE\n")],
  ["no-secrets", (t) => t.replace("PORT=3000", "PORT=3000 SLACK_BOT_TOKEN=xoxb-1-2-3")],
  ["no-secrets", (t) => t.replace("ARG NODE_VERSION", "ARG HERMES_AUDIT_KEY\nARG NODE_VERSION")],
  ["production", (t) => t.replace("NODE_ENV=production", "NODE_ENV=development")],
  ["production", (t) => t.replace(/^EXPOSE 3000$/m, "")],
];

describe("the Dockerfile checker", () => {
  const dir = mkdtempSync(join(tmpdir(), "hermes-dockerfile-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(broken.map(([rule, mutate], i) => [rule, i, mutate] as const))(
    "reports a Dockerfile that breaks %s (case %i)",
    (rule, i, mutate) => {
      const text = mutate(dockerfile);
      expect(text).not.toBe(dockerfile);
      const path = join(dir, `Dockerfile.${i}`);
      writeFileSync(path, text);
      const problems = checkDockerfileFile(path, nodeVersion);
      expect(problems.map((p) => p.rule)).toContain(rule);
    },
  );

  it("covers every rule with a broken case", () => {
    const rules: RuleId[] = [
      "node-version",
      "base-image",
      "multi-stage",
      "npm-ci-only",
      "no-bundled-node",
      "runtime-copies",
      "non-root",
      "data-dir",
      "init",
      "cmd",
      "healthcheck",
      "no-secrets",
      "production",
    ];
    expect(new Set(broken.map(([rule]) => rule))).toEqual(new Set(rules));
  });
});
