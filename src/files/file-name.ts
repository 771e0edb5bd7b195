/** The file's name as it may appear inside a sentence: one line, no controls, at most 80 characters. */
export function shownName(name: string): string {
  const oneLine = name.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ").trim();
  const safe = oneLine.replace(/[`*_~<>]/g, "") || "the file";
  return safe.length > 80 ? `${safe.slice(0, 77)}...` : safe;
}

/** The name's extension in lower case, without the dot ("" when it has none). */
export function extensionOf(name: string): string {
  const base = name.slice(name.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  return dot <= 0 ? "" : base.slice(dot + 1).toLowerCase();
}
