/** Slack's `filetype`, `pretty_type` and a MIME type from a file name, with the bytes as a tie-breaker for images. */
interface FileKind {
  filetype: string;
  mimetype: string;
  pretty_type: string;
}

const PNG: FileKind = { filetype: "png", mimetype: "image/png", pretty_type: "PNG" };

const BY_EXTENSION: Record<string, FileKind> = {
  png: PNG,
  jpg: { filetype: "jpg", mimetype: "image/jpeg", pretty_type: "JPEG" },
  jpeg: { filetype: "jpg", mimetype: "image/jpeg", pretty_type: "JPEG" },
  gif: { filetype: "gif", mimetype: "image/gif", pretty_type: "GIF" },
  webp: { filetype: "webp", mimetype: "image/webp", pretty_type: "WebP" },
  svg: { filetype: "svg", mimetype: "image/svg+xml", pretty_type: "SVG" },
  csv: { filetype: "csv", mimetype: "text/csv", pretty_type: "CSV" },
  tsv: { filetype: "tsv", mimetype: "text/tab-separated-values", pretty_type: "TSV" },
  txt: { filetype: "text", mimetype: "text/plain", pretty_type: "Plain Text" },
  log: { filetype: "text", mimetype: "text/plain", pretty_type: "Plain Text" },
  md: { filetype: "markdown", mimetype: "text/markdown", pretty_type: "Markdown (raw)" },
  json: { filetype: "json", mimetype: "application/json", pretty_type: "JSON" },
  yaml: { filetype: "yaml", mimetype: "application/x-yaml", pretty_type: "YAML" },
  yml: { filetype: "yaml", mimetype: "application/x-yaml", pretty_type: "YAML" },
  html: { filetype: "html", mimetype: "text/html", pretty_type: "HTML" },
  pdf: { filetype: "pdf", mimetype: "application/pdf", pretty_type: "PDF" },
  zip: { filetype: "zip", mimetype: "application/zip", pretty_type: "Zip" },
  docx: {
    filetype: "docx",
    mimetype: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    pretty_type: "Word Document",
  },
  xlsx: {
    filetype: "xlsx",
    mimetype: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    pretty_type: "Excel Spreadsheet",
  },
  mp3: { filetype: "mp3", mimetype: "audio/mpeg", pretty_type: "MP3" },
  m4a: { filetype: "m4a", mimetype: "audio/mp4", pretty_type: "M4A" },
  wav: { filetype: "wav", mimetype: "audio/wav", pretty_type: "WAV" },
  webm: { filetype: "webm", mimetype: "audio/webm", pretty_type: "WebM" },
  mp4: { filetype: "mp4", mimetype: "video/mp4", pretty_type: "MPEG 4 Video" },
};

const BINARY: FileKind = { filetype: "binary", mimetype: "application/octet-stream", pretty_type: "Binary" };

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function fileTypeOf(name: string, bytes?: Buffer): FileKind {
  if (bytes?.subarray(0, 8).equals(PNG_SIGNATURE)) return { ...PNG };
  const extension = name.includes(".") ? (name.split(".").pop() ?? "").toLowerCase() : "";
  return { ...(BY_EXTENSION[extension] ?? BINARY) };
}

/** Width and height of a PNG or GIF from its header; undefined for anything else. */
export function imageSize(bytes: Buffer): { width: number; height: number } | undefined {
  if (bytes.length >= 24 && bytes.subarray(0, 8).equals(PNG_SIGNATURE)) {
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  if (bytes.length >= 10 && /^GIF8[79]a$/.test(bytes.subarray(0, 6).toString("latin1"))) {
    return { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) };
  }
  return undefined;
}
