import { isUtf8 } from "node:buffer";

/**
 * Whether bytes with no file signature are text: UTF-8 without NUL characters, or UTF-16 with its BOM
 * (confirmed when decoded). Fast on any size (simdutf validation and a byte search), unlike decoding:
 * turning 25 MB of non-ASCII UTF-8 into a string takes over half a second.
 */
export function looksLikeText(bytes: Uint8Array): boolean {
  if (hasUtf16Bom(bytes)) return true;
  return bytes.indexOf(0) === -1 && isUtf8(bytes);
}

/**
 * The text of such bytes: UTF-8 (a BOM dropped) or UTF-16 with its BOM, and no NUL characters.
 * Anything else is undefined: a binary file or a legacy encoding, which is not guessed.
 */
export function decodeText(bytes: Uint8Array): string | undefined {
  const text = decode(bytes);
  if (text === undefined || text.includes("\u0000")) return undefined;
  return text;
}

function hasUtf16Bom(bytes: Uint8Array): boolean {
  return (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
}

function decode(bytes: Uint8Array): string | undefined {
  try {
    if (bytes[0] === 0xff && bytes[1] === 0xfe)
      return new TextDecoder("utf-16le", { fatal: true }).decode(bytes);
    if (bytes[0] === 0xfe && bytes[1] === 0xff)
      return new TextDecoder("utf-16be", { fatal: true }).decode(bytes);
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
