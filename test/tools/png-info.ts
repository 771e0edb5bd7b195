import { crc32, inflateSync } from "node:zlib";

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 4: 2, 6: 4 };

/**
 * Decodes a PNG far enough to trust it: signature, every chunk's CRC, IHDR size, IEND, and the
 * inflated image data being exactly one filter byte plus one row of pixels per line (8-bit only).
 */
export function decodePng(png: Buffer): { width: number; height: number; colorType: number } {
  if (!png.subarray(0, 8).equals(SIGNATURE)) throw new Error("not a PNG signature");
  let offset = 8;
  let header: { width: number; height: number; colorType: number; bitDepth: number } | undefined;
  const idat: Buffer[] = [];
  let ended = false;
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString("latin1", offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    const crc = png.readUInt32BE(offset + 8 + length);
    if (crc32(png.subarray(offset + 4, offset + 8 + length)) !== crc) throw new Error(`bad CRC in ${type}`);
    if (type === "IHDR") {
      header = {
        width: data.readUInt32BE(0),
        height: data.readUInt32BE(4),
        bitDepth: data[8]!,
        colorType: data[9]!,
      };
    } else if (type === "IDAT") idat.push(data);
    else if (type === "IEND") ended = true;
    offset += 12 + length;
  }
  if (!header || !ended) throw new Error("missing IHDR or IEND");
  const channels = CHANNELS[header.colorType];
  if (header.bitDepth !== 8 || !channels) throw new Error("unexpected PNG format");
  const raw = inflateSync(Buffer.concat(idat));
  if (raw.length !== header.height * (1 + header.width * channels))
    throw new Error("image data size mismatch");
  return { width: header.width, height: header.height, colorType: header.colorType };
}
