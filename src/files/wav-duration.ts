/**
 * A WAV file's length in seconds as its header declares it (the `data` chunk's size over the `fmt `
 * chunk's byte rate), or undefined when the header can't say: a truncated or odd file is passed on
 * and the transcriber judges it.
 */
export function wavSeconds(bytes: Uint8Array): number | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 12 || tag(view, 0) !== "RIFF" || tag(view, 8) !== "WAVE") return undefined;
  let byteRate: number | undefined;
  let offset = 12;
  // Chunks are walked, never read: a few dozen at most before `data` in any real file.
  for (let chunk = 0; chunk < 64 && offset + 8 <= bytes.byteLength; chunk++) {
    const id = tag(view, offset);
    const size = view.getUint32(offset + 4, true);
    if (id === "fmt " && offset + 16 <= bytes.byteLength) byteRate = view.getUint32(offset + 8 + 8, true);
    if (id === "data") return byteRate ? size / byteRate : undefined;
    offset += 8 + size + (size % 2);
  }
  return undefined;
}

function tag(view: DataView, offset: number): string {
  return String.fromCharCode(
    view.getUint8(offset),
    view.getUint8(offset + 1),
    view.getUint8(offset + 2),
    view.getUint8(offset + 3),
  );
}
