import { cpSync, mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, posix } from "node:path";
import { runProcess } from "../helpers/child-process.ts";
import { parseDockerfile, stageCopies, stageEnv, stageWorkdir } from "./dockerfile-parse.ts";
import { BUNDLED_NODE_PATHS, runtimeStage } from "./dockerfile-rules.ts";

export interface RuntimeCopy {
  /** The runtime stage's WORKDIR, laid out in a temp folder. */
  appDir: string;
  /** The runtime stage's ENV. */
  env: Record<string, string>;
  /** CMD and the HEALTHCHECK's command, exec form. */
  cmd: string[];
  healthcheck: string[];
  /** How long building the production node_modules took. */
  nodeModulesMs: number;
  remove(): void;
}

/**
 * The runtime stage of the Dockerfile without Docker: every COPY it makes, read from the Dockerfile
 * itself, into a temp folder standing for its WORKDIR. The build stage's node_modules is made as the
 * build stage makes it, from package.json and package-lock.json alone with dev dependencies left out,
 * but from this checkout's installed tree instead of the registry (`npm prune --omit=dev --offline`):
 * the same packages as `npm ci --omit=dev`, with no network and in seconds. Like the build stage, it
 * then removes the registry's Node binary that npm ci installs for npm scripts (the image has its own).
 */
export async function layOutRuntimeCopy(repoRoot: string, dockerfileText: string): Promise<RuntimeCopy> {
  const file = parseDockerfile(dockerfileText);
  const runtime = runtimeStage(file);
  const workdir = stageWorkdir(runtime);
  const root = mkdtempSync(join(tmpdir(), "hermes-image-"));
  const appDir = join(root, "app");
  mkdirSync(appDir);
  let nodeModulesMs = 0;
  try {
    for (const copy of stageCopies(runtime)) {
      const dest = posix.resolve(workdir, copy.dest);
      if (dest !== workdir && !dest.startsWith(`${workdir}/`))
        throw new Error(`COPY to ${dest}, outside WORKDIR ${workdir}: this test lays out the WORKDIR only`);
      const target = join(appDir, posix.relative(workdir, dest));
      const intoDir = copy.dest.endsWith("/") || copy.sources.length > 1;
      for (const source of copy.sources) {
        if (copy.from !== undefined) {
          if (basename(source) !== "node_modules")
            throw new Error(
              `COPY --from=${copy.from} ${source}: this test can make the build stage's node_modules only`,
            );
          const started = Date.now();
          await productionNodeModules(
            repoRoot,
            join(root, "build"),
            intoDir ? join(target, "node_modules") : target,
          );
          nodeModulesMs = Date.now() - started;
          continue;
        }
        const from = join(repoRoot, source);
        // Docker copies a directory's contents into the destination, and a file into it or as it.
        const to = statSync(from).isDirectory() || !intoDir ? target : join(target, basename(source));
        mkdirSync(dirname(to), { recursive: true });
        cpSync(from, to, { recursive: true });
      }
    }
  } catch (err) {
    rmSync(root, { recursive: true, force: true });
    throw err;
  }
  const health = runtime.body.filter((i) => i.keyword === "HEALTHCHECK").at(-1)?.exec;
  const cmd = runtime.body.filter((i) => i.keyword === "CMD").at(-1)?.exec;
  if (!cmd || !health) throw new Error("the runtime stage has no exec-form CMD or HEALTHCHECK");
  return {
    appDir,
    env: Object.fromEntries(stageEnv(runtime)),
    cmd,
    healthcheck: health,
    nodeModulesMs,
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** The build stage: package.json + package-lock.json, then production dependencies only. */
async function productionNodeModules(repoRoot: string, buildDir: string, target: string) {
  mkdirSync(buildDir, { recursive: true });
  for (const name of ["package.json", "package-lock.json"])
    cpSync(join(repoRoot, name), join(buildDir, name));
  // A real copy (the checkout's node_modules may be a link to a shared tree that must stay whole).
  const copied = await runProcess(
    "cp",
    ["-a", `${realpathSync(join(repoRoot, "node_modules"))}/.`, join(buildDir, "node_modules")],
    {
      env: { PATH: process.env.PATH ?? "" },
    },
  );
  if (copied.code !== 0) throw new Error(`copying node_modules failed: ${copied.stderr}`);
  const pruned = await runProcess("npm", ["prune", "--omit=dev", "--offline", "--no-audit", "--no-fund"], {
    cwd: buildDir,
    env: nodeEnv(),
  });
  if (pruned.code !== 0) throw new Error(`npm prune --omit=dev failed:\n${pruned.stdout}${pruned.stderr}`);
  for (const path of BUNDLED_NODE_PATHS) rmSync(join(buildDir, path), { recursive: true, force: true });
  mkdirSync(dirname(target), { recursive: true });
  renameSync(join(buildDir, "node_modules"), target);
}

/** PATH with this Node first: `npm` and the scripts it runs use the Node the suite runs on. */
export function nodeEnv(): Record<string, string> {
  const base = Object.fromEntries(
    ["HOME", "LANG"].filter((k) => process.env[k]).map((k) => [k, process.env[k] as string]),
  );
  return { ...base, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}` };
}
