import { readFileSync } from "node:fs";

/** The version of `pkg` as installed in this repository's node_modules (its `exports` may hide package.json). */
export function installedVersion(pkg: string): string {
  const file = new URL(`../../node_modules/${pkg}/package.json`, import.meta.url);
  const { version } = JSON.parse(readFileSync(file, "utf8")) as { version: string };
  return version;
}
