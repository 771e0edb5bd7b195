const ASCII = /^[\x20-\x7e]*$/;

/**
 * A name as a person means it: full-width and half-width forms alike (NFKC: `Ｌｉ` is `Li`), case
 * ignored, and spaces, dots, dashes, underscores and a leading `@` or `#` dropped, so "Li Ming",
 * "li.ming" and "@LI_MING" are one key. Chinese names keep their characters ("李明").
 */
export function nameKey(name: string): string {
  // Most names are plain ASCII: NFKC would leave them as they are, and it is the costly step.
  const text = ASCII.test(name) ? name : name.normalize("NFKC");
  return text
    .toLowerCase()
    .trim()
    .replace(/^[@#]+/, "")
    .replace(/[\s._\-·・]+/gu, "");
}
