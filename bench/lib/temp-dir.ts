import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A temp folder for one benchmark's processes, removed by `remove()` (call it in `finally`). */
export function tempDir(label: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `hermes-${label}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
