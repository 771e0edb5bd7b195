import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** Where this run's migrated PGlite template is built, at first need (test/helpers/pglite-template.ts). */
    pgliteTemplateRoot: string;
  }
}

/** Global setup: names one folder for the run's PGlite template, and removes it when the run ends. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = await mkdtemp(join(tmpdir(), "hermes-pglite-template-"));
  project.provide("pgliteTemplateRoot", root);
  return () => rm(root, { recursive: true, force: true });
}
