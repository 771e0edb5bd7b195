/**
 * A zip bomb check for DOCX/XLSX read from the archive's central directory alone, before anything is
 * inflated: the sizes it declares add up within `maxUnzippedBytes`, no sizeable entry claims a ratio
 * above `maxCompressionRatio`, and the entry count stays small. An archive whose directory can't be
 * found or read, or that needs ZIP64 (sizes past 4 GB), is not opened. A directory that understates
 * its sizes is still bounded by the parse worker's memory limit and timeout.
 */
export type ZipCheck =
  | { ok: true; entries: number; uncompressedBytes: number }
  | { ok: false; problem: "unreadable" }
  | { ok: false; problem: "too-large"; uncompressedBytes: number };

export interface ZipBounds {
  maxUnzippedBytes: number;
  maxCompressionRatio: number;
}

const EOCD_SIGNATURE = 0x06054b50;
const ENTRY_SIGNATURE = 0x02014b50;
const EOCD_SIZE = 22;
const ENTRY_SIZE = 46;
const MAX_COMMENT = 0xffff;
const MAX_ENTRIES = 10_000;
/** Entries smaller than this may compress as well as they like (an empty sheet's XML does). */
const RATIO_FLOOR_BYTES = 1024 * 1024;

export function checkZipSizes(bytes: Uint8Array, bounds: ZipBounds): ZipCheck {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const eocd = findEndOfDirectory(view);
  if (eocd === undefined) return { ok: false, problem: "unreadable" };
  const entries = view.getUint16(eocd + 10, true);
  const directorySize = view.getUint32(eocd + 12, true);
  if (entries === 0xffff || directorySize === 0xffffffff || entries > MAX_ENTRIES)
    return { ok: false, problem: "unreadable" };
  // Measured back from the end record, so data prepended to the archive does not shift it.
  let offset = eocd - directorySize;
  if (offset < 0) return { ok: false, problem: "unreadable" };
  let total = 0;
  for (let index = 0; index < entries; index++) {
    if (offset + ENTRY_SIZE > eocd || view.getUint32(offset, true) !== ENTRY_SIGNATURE)
      return { ok: false, problem: "unreadable" };
    const compressed = view.getUint32(offset + 20, true);
    const uncompressed = view.getUint32(offset + 24, true);
    if (compressed === 0xffffffff || uncompressed === 0xffffffff) return { ok: false, problem: "unreadable" };
    total += uncompressed;
    const ratio = uncompressed / Math.max(compressed, 1);
    if (
      total > bounds.maxUnzippedBytes ||
      (uncompressed > RATIO_FLOOR_BYTES && ratio > bounds.maxCompressionRatio)
    )
      return { ok: false, problem: "too-large", uncompressedBytes: total };
    offset +=
      ENTRY_SIZE +
      view.getUint16(offset + 28, true) +
      view.getUint16(offset + 30, true) +
      view.getUint16(offset + 32, true);
  }
  return { ok: true, entries, uncompressedBytes: total };
}

/** The end-of-central-directory record's offset: the last one, searched back over a possible comment. */
function findEndOfDirectory(view: DataView): number | undefined {
  const last = view.byteLength - EOCD_SIZE;
  const first = Math.max(0, last - MAX_COMMENT);
  for (let offset = last; offset >= first; offset--) {
    if (view.getUint32(offset, true) === EOCD_SIGNATURE) return offset;
  }
  return undefined;
}
