import { getDocumentProxy } from "unpdf";
import { capText } from "./cap-text.ts";
import type { ParsedText } from "./parse-messages.ts";

/** Pages read at most: past this the text budget is spent on any real document anyway. */
const MAX_PAGES = 2000;

/**
 * A PDF's text, page after page, stopping once the character budget (or MAX_PAGES) is reached. The
 * document's fonts are not handed to the system or loaded as font faces; text needs neither.
 */
export async function pdfText(bytes: Uint8Array, maxChars: number): Promise<ParsedText> {
  const pdf = await getDocumentProxy(bytes, {
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
  });
  try {
    const pages = pdf.numPages;
    const last = Math.min(pages, MAX_PAGES);
    const parts: string[] = [];
    let length = 0;
    let read = 0;
    while (read < last && length <= maxChars) {
      read += 1;
      const page = await pdf.getPage(read);
      const content = await page.getTextContent();
      let text = "";
      for (const item of content.items) {
        if ("str" in item) text += item.str + (item.hasEOL ? "\n" : "");
      }
      page.cleanup();
      parts.push(text.trim());
      length += text.length + 2;
    }
    const capped = capText(parts.join("\n\n"), maxChars, read < pages);
    const detail = read < pages ? `first ${read} of ${pages} pages read` : plural(pages, "page");
    return { ...capped, detail };
  } finally {
    await pdf.loadingTask.destroy();
  }
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
