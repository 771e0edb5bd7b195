/** Slack's `filetype` and a MIME type from a file name, with the bytes as a tie-breaker for images. */
const BY_EXTENSION: Record<string, { filetype: string; mimetype: string }> = {
  png: { filetype: "png", mimetype: "image/png" },
  jpg: { filetype: "jpg", mimetype: "image/jpeg" },
  jpeg: { filetype: "jpg", mimetype: "image/jpeg" },
  gif: { filetype: "gif", mimetype: "image/gif" },
  svg: { filetype: "svg", mimetype: "image/svg+xml" },
  csv: { filetype: "csv", mimetype: "text/csv" },
  txt: { filetype: "text", mimetype: "text/plain" },
  md: { filetype: "markdown", mimetype: "text/markdown" },
  json: { filetype: "json", mimetype: "application/json" },
  pdf: { filetype: "pdf", mimetype: "application/pdf" },
};

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function fileTypeOf(name: string, bytes?: Buffer): { filetype: string; mimetype: string } {
  if (bytes?.subarray(0, 8).equals(PNG_SIGNATURE)) return { filetype: "png", mimetype: "image/png" };
  const extension = name.includes(".") ? (name.split(".").pop() ?? "").toLowerCase() : "";
  return BY_EXTENSION[extension] ?? { filetype: "binary", mimetype: "application/octet-stream" };
}
