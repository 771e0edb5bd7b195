import { readFile as readFromDisk } from "node:fs/promises";
import sharp from "sharp";
import { afterAll, describe, expect, it } from "vitest";
import { countRecords, guessDelimiter } from "../../src/files/csv-text.ts";
import { DEFAULT_FILE_LIMITS } from "../../src/files/file-limits.ts";
import { closeParseWorkers } from "../../src/files/parse-off-thread.ts";
import { type FileReading, readFile, refuseBySize, sha256Hex } from "../../src/files/read-file.ts";

const fixture = (name: string) => readFromDisk(new URL(`../fixtures/files/${name}`, import.meta.url));

function expectKind<K extends FileReading["kind"]>(
  reading: FileReading,
  kind: K,
): Extract<FileReading, { kind: K }> {
  if (reading.kind !== kind) throw new Error(`expected ${kind}, got ${JSON.stringify(reading)}`);
  return reading as Extract<FileReading, { kind: K }>;
}

afterAll(closeParseWorkers);

describe("readFile on real files of each type", () => {
  it("keeps a small PNG's size and format", async () => {
    const image = expectKind(await readFile(await fixture("sample.png"), { name: "tiles.png" }), "image");
    expect(image).toMatchObject({
      mime: "image/png",
      width: 120,
      height: 80,
      originalWidth: 120,
      originalHeight: 80,
    });
    expect((await sharp(image.data).metadata()).format).toBe("png");
  });

  it("downscales a JPEG so its longer side fits, keeping the aspect ratio", async () => {
    const reading = await readFile(await fixture("sample.jpg"), { name: "photo.jpg" }, { maxImageSide: 60 });
    const image = expectKind(reading, "image");
    expect(image).toMatchObject({
      mime: "image/jpeg",
      width: 60,
      height: 40,
      originalWidth: 120,
      originalHeight: 80,
    });
    expect(await sharp(image.data).metadata()).toMatchObject({ format: "jpeg", width: 60, height: 40 });
  });

  it("turns a GIF into a PNG of its first frame", async () => {
    const image = expectKind(await readFile(await fixture("sample.gif"), { name: "anim.gif" }), "image");
    expect(image.mime).toBe("image/png");
    expect((await sharp(image.data).metadata()).format).toBe("png");
  });

  it("reads a PDF's text page by page", async () => {
    const text = expectKind(await readFile(await fixture("sample.pdf"), { name: "report.pdf" }), "text");
    expect(text).toMatchObject({
      format: "pdf",
      mime: "application/pdf",
      truncated: false,
      detail: "2 pages",
    });
    expect(text.text).toContain("Quarterly VPN report");
    expect(text.text).toContain("Second page: the follow-up actions.");
    expect(text.chars).toBe(text.text.length);
    const cut = expectKind(
      await readFile(await fixture("sample.pdf"), { name: "report.pdf" }, { maxTextChars: 10 }),
      "text",
    );
    expect(cut).toMatchObject({ text: "Quarterly ", truncated: true });
  });

  it("reads a Word document as Markdown", async () => {
    const text = expectKind(
      await readFile(await fixture("sample.docx"), { name: "onboarding.docx" }),
      "text",
    );
    expect(text.format).toBe("docx");
    expect(text.text).toContain("# Onboarding checklist");
    expect(text.text).toContain("## Accounts");
    expect(text.text).toContain("Request a laptop from IT before the first day.");
  });

  it("reads each sheet of a workbook as its name and CSV rows, formulas as their results", async () => {
    const text = expectKind(await readFile(await fixture("sample.xlsx"), { name: "tickets.xlsx" }), "text");
    expect(text).toMatchObject({ format: "xlsx", detail: "2 sheets, 6 rows" });
    expect(text.text).toContain('## Sheet "Tickets" (4 rows × 4 columns)');
    expect(text.text).toContain('102,"Printer on floor 3, jammed",low,2026-10-04');
    expect(text.text).toContain("103,Total,,203");
    expect(text.text).toContain('## Sheet "Owners" (2 rows × 2 columns)\nteam,owner\nnetwork,Dana');
  });

  it("reads a CSV file as a table with quoted cells kept as written", async () => {
    const text = expectKind(await readFile(await fixture("sample.csv"), { name: "tickets.csv" }), "text");
    expect(text).toMatchObject({ format: "csv", mime: "text/csv", detail: "4 rows" });
    expect(text.text).toContain('1,"Laptop won\'t boot, blue screen",open');
    expect(text.text).toContain('3,"Quote ""urgent"" ticket",open');
  });

  it("shows the first rows of a long CSV and counts them all", async () => {
    const rows = ["n;square", ...Array.from({ length: 2000 }, (_, n) => `${n};${n * n}`)].join("\n");
    const text = expectKind(await readFile(Buffer.from(rows), { name: "squares.csv" }), "text");
    expect(text.detail).toBe("2001 rows");
    expect(text.text).toContain("(2001 rows × 2 columns; first 500 rows shown)");
    expect(text.text).toContain("498,248004");
    expect(text.text).not.toContain("499,249001");
  });

  it("passes a WAV through with its duration from the header", async () => {
    const bytes = await fixture("sample.wav");
    const audio = expectKind(await readFile(bytes, { name: "note.wav" }), "audio");
    expect(audio).toMatchObject({ mime: "audio/wav", seconds: 0.5 });
    expect(audio.data.equals(bytes)).toBe(true);
  });

  it("reads text by its bytes whatever the name, and cuts it to the character budget", async () => {
    const log = `${"2026-10-14 09:42 upload failed: 413\n".repeat(100)}ünïcode ✓`;
    const text = expectKind(
      await readFile(Buffer.from(log), { name: "server.log", declaredMime: "text/x-log" }),
      "text",
    );
    expect(text).toMatchObject({
      format: "text",
      mime: "text/x-log",
      truncated: false,
      chars: log.length,
      text: log,
    });
    const cut = expectKind(
      await readFile(Buffer.from(log), { name: "server.log" }, { maxTextChars: 100 }),
      "text",
    );
    expect(cut).toMatchObject({ truncated: true, chars: log.length, mime: "text/plain" });
    expect(cut.text).toBe(log.slice(0, 100));
    // A large file is decoded on a worker, and cut the same way.
    const large = "日志 line ✓\n".repeat(30_000);
    const largeText = expectKind(await readFile(Buffer.from(large), { name: "big.log" }), "text");
    expect(largeText).toMatchObject({ truncated: true, chars: large.length, text: large.slice(0, 200_000) });
    const xml = '<?xml version="1.0"?><config><retries>3</retries></config>';
    expect(await readFile(Buffer.from(xml), { name: "config.xml" })).toMatchObject({
      kind: "text",
      text: xml,
    });
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("notes in UTF-16", "utf16le")]);
    expect(expectKind(await readFile(utf16, { name: "notes.txt" }), "text").text).toBe("notes in UTF-16");
  });

  it("never detaches or changes the caller's bytes", async () => {
    const bytes = await fixture("sample.pdf");
    const before = sha256Hex(bytes);
    await readFile(bytes, { name: "report.pdf" });
    expect(bytes.byteLength).toBeGreaterThan(0);
    expect(sha256Hex(bytes)).toBe(before);
  });
});

describe("helpers", () => {
  it("refuseBySize answers before download: a sentence past the cap, nothing within it", () => {
    expect(refuseBySize(2 * 1024 ** 3, "backup.zip")).toBe(
      '"backup.zip" is 2.0 GB, over the 25 MB I can read; attach a smaller file or the part that matters.',
    );
    expect(refuseBySize(DEFAULT_FILE_LIMITS.maxFileBytes, "ok.pdf")).toBeUndefined();
    expect(refuseBySize(11 * 1024 * 1024, "big.pdf", { maxFileBytes: 10 * 1024 * 1024 })).toContain(
      "over the 10 MB",
    );
  });

  it("sha256Hex is the SHA-256 of the bytes", () => {
    expect(sha256Hex(Buffer.from("abc"))).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
  });

  it("counts CSV records across quoted line breaks and picks the first line's separator", () => {
    expect(countRecords('a,b\n"x\ny",z\r\n\nlast,row')).toBe(3);
    expect(guessDelimiter("a;b;c\n1;2;3", false)).toBe(";");
    expect(guessDelimiter("a\tb\n", false)).toBe("\t");
    expect(guessDelimiter("a;b", true)).toBe("\t");
    expect(guessDelimiter("single", false)).toBe(",");
  });
});
