import type { FileLimits } from "./file-limits.ts";
import { refusals } from "./file-refusals.ts";
import type { ImageMime } from "./sniff-file-type.ts";

export type ImageReading = {
  kind: "image";
  mime: "image/png" | "image/jpeg" | "image/webp";
  data: Buffer;
  width: number;
  height: number;
  originalWidth: number;
  originalHeight: number;
};

export type ImageRefusal = { kind: "refused"; mime: string; reason: string; cause?: string };

type Sharp = typeof import("sharp").default;
let loaded: Promise<Sharp> | undefined;

/** sharp on first use: its native library is not loaded by a process that never sees an image. */
function loadSharp(): Promise<Sharp> {
  loaded ??= import("sharp").then((module) => module.default);
  return loaded;
}

/**
 * An image downscaled so its longer side fits `maxImageSide`, upright (EXIF orientation applied) and
 * without metadata. Its pixel count is read from the header first (no pixels decoded, so no limit is
 * needed for that read) and refused past `maxImagePixels`; sharp's `limitInputPixels` holds the same
 * bound while decoding, for a header that lies. GIFs
 * become a PNG of their first frame. sharp decodes on libuv's pool, off the event loop.
 */
export async function readImage(
  bytes: Uint8Array,
  mime: ImageMime,
  name: string,
  limits: FileLimits,
): Promise<ImageReading | ImageRefusal> {
  const sharp = await loadSharp();
  const options = { limitInputPixels: limits.maxImagePixels, failOn: "error" as const, pages: 1 };
  let header: { width: number; height: number; orientation?: number | undefined };
  try {
    header = await sharp(bytes, { ...options, limitInputPixels: false }).metadata();
  } catch (error) {
    return { kind: "refused", mime, reason: refusals.damaged(name, "an image"), cause: message(error) };
  }
  const { width, height } = header;
  if (!width || !height) return { kind: "refused", mime, reason: refusals.damaged(name, "an image") };
  if (width * height > limits.maxImagePixels)
    return { kind: "refused", mime, reason: refusals.imageTooLarge(name, width, height) };
  const turned = (header.orientation ?? 1) >= 5;
  const outputMime = mime === "image/gif" ? "image/png" : mime;
  try {
    let pipeline = sharp(bytes, options).rotate().resize({
      width: limits.maxImageSide,
      height: limits.maxImageSide,
      fit: "inside",
      withoutEnlargement: true,
    });
    if (outputMime === "image/png") pipeline = pipeline.png({ compressionLevel: 6 });
    else if (outputMime === "image/jpeg") pipeline = pipeline.jpeg({ quality: 85 });
    else pipeline = pipeline.webp({ quality: 85 });
    const { data, info } = await pipeline.toBuffer({ resolveWithObject: true });
    return {
      kind: "image",
      mime: outputMime,
      data,
      width: info.width,
      height: info.height,
      originalWidth: turned ? height : width,
      originalHeight: turned ? width : height,
    };
  } catch (error) {
    const cause = message(error);
    if (/pixel limit/i.test(cause))
      return { kind: "refused", mime, reason: refusals.imageTooLarge(name, width, height), cause };
    return { kind: "refused", mime, reason: refusals.damaged(name, "an image"), cause };
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
