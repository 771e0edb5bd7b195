/**
 * What reading one attached file may cost. Each bound is checked before the work it guards: size
 * before download and before sniffing, declared zip sizes before a DOCX/XLSX is opened, pixel count
 * from an image's header before it is decoded, and time and memory around every document parse.
 */
export interface FileLimits {
  /** Bigger is refused before download (the size Slack reports) and again on the bytes. */
  maxFileBytes: number;
  /** Characters of extracted text kept; the rest is cut and the reading says `truncated: true`. */
  maxTextChars: number;
  /** Images are downscaled so their longer side fits. */
  maxImageSide: number;
  /** Input pixels an image may declare (sharp's `limitInputPixels`); more is refused from the header. */
  maxImagePixels: number;
  /** Total uncompressed bytes a DOCX/XLSX may declare in its central directory. */
  maxUnzippedBytes: number;
  /** Largest uncompressed/compressed ratio of one sizeable zip entry (DOCX/XLSX). */
  maxCompressionRatio: number;
  /** A document parse that runs longer is stopped (its worker terminated). */
  parseTimeoutMs: number;
  /** Old-generation heap of a parse worker; a parse that needs more is stopped. */
  parseMemoryMb: number;
  /** Audio that says it is longer is refused. */
  maxAudioSeconds: number;
}

export const DEFAULT_FILE_LIMITS: FileLimits = Object.freeze({
  maxFileBytes: 25 * 1024 * 1024,
  maxTextChars: 200_000,
  maxImageSide: 2048,
  maxImagePixels: 100_000_000,
  maxUnzippedBytes: 100 * 1024 * 1024,
  maxCompressionRatio: 200,
  parseTimeoutMs: 20_000,
  parseMemoryMb: 512,
  maxAudioSeconds: 600,
});

/** The defaults with the given bounds over them (an undefined value keeps the default). */
export function fileLimits(overrides: Partial<FileLimits> = {}): FileLimits {
  const limits: FileLimits = { ...DEFAULT_FILE_LIMITS };
  for (const [key, value] of Object.entries(overrides) as [keyof FileLimits, number | undefined][]) {
    if (value !== undefined) limits[key] = value;
  }
  return limits;
}
