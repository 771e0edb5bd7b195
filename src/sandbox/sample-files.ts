import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { fileTypeOf } from "./file-types.ts";

/**
 * The demo workspace's sample files a person can attach with one click: a screenshot, a PDF report
 * and a CSV of tickets, from `src/files/demo/`.
 */
export const SAMPLE_FILE_NAMES = [
  "sample-screenshot.png",
  "sample-report.pdf",
  "sample-tickets.csv",
] as const;

const DIRS = [fileURLToPath(new URL("../files/demo/", import.meta.url))];

export interface SampleFile {
  name: string;
  mimetype: string;
  filetype: string;
  size: number;
}

/** A sample file's bytes; undefined for a name that is no sample (never a path). */
export function sampleFileBytes(name: string): Buffer | undefined {
  if (!(SAMPLE_FILE_NAMES as readonly string[]).includes(name)) return undefined;
  for (const dir of DIRS) {
    const path = `${dir}${name}`;
    if (existsSync(path)) return readFileSync(path);
  }
  return undefined;
}

/** The samples there are, for the composer's menu. */
export function listSampleFiles(): SampleFile[] {
  return SAMPLE_FILE_NAMES.flatMap((name) => {
    const bytes = sampleFileBytes(name);
    if (!bytes) return [];
    const { mimetype, filetype } = fileTypeOf(name, bytes);
    return [{ name, mimetype, filetype, size: bytes.length }];
  });
}
