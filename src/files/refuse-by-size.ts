import { DEFAULT_FILE_LIMITS, type FileLimits } from "./file-limits.ts";
import { refusals } from "./file-refusals.ts";

/**
 * The sentence for a file too large to read, or undefined when its size is within the cap. Meant for
 * the size Slack reports, before anything is downloaded; `readFile` checks the bytes again.
 */
export function refuseBySize(
  size: number,
  name: string,
  limits: Pick<FileLimits, "maxFileBytes"> = DEFAULT_FILE_LIMITS,
): string | undefined {
  if (size === 0) return refusals.empty(name);
  return size > limits.maxFileBytes ? refusals.tooBig(name, size, limits.maxFileBytes) : undefined;
}
