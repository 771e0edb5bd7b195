import mammoth from "mammoth";
import { capText } from "./cap-text.ts";
import type { ParsedText } from "./parse-messages.ts";

/** mammoth's Markdown output, which its type declarations leave out. */
interface MarkdownConverter {
  convertToMarkdown: typeof mammoth.convertToHtml;
}

/**
 * A Word document as Markdown (headings, lists, links and emphasis kept). Images are left out
 * unread: each is a placeholder, so no picture is inflated or base64-encoded into the text.
 */
export async function docxText(bytes: Uint8Array, maxChars: number): Promise<ParsedText> {
  const result = await (mammoth as typeof mammoth & MarkdownConverter).convertToMarkdown(
    { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
    { convertImage: mammoth.images.imgElement(async () => ({ src: "", alt: "image" })) },
  );
  // mammoth escapes every period and parenthesis; the model reads the plain characters better.
  const text = result.value
    .replace(/!\[image\]\(\)/g, "[image]")
    .replace(/\\([.()!-])/g, "$1")
    .trim();
  return capText(text, maxChars);
}
