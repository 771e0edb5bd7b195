import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { installedVersion } from "./installed-version.ts";

/**
 * What `src/core/logger.ts` relies on in pino and sonic-boom, against the installed versions. Its buffered
 * destination gathers lines as text and hands sonic-boom bytes in batches, replacing the stream's own
 * `write`, `flush`, `flushSync` and `end`: that works only while sonic-boom's periodic flush and pino's
 * exit flush call those methods on the stream itself (not on its class), and while a stream in
 * `contentMode: "buffer"` takes the batch's bytes whole. The line writer copies pino's line layout
 * (test/core/logger.test.ts compares it with pino's own lines).
 */
describe("pino and sonic-boom as the logger uses them", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const file = () => {
    const dir = mkdtempSync(join(tmpdir(), "hermes-seam-"));
    dirs.push(dir);
    return join(dir, "log");
  };

  it("is checked against pino 10.4.0, sonic-boom 4.2.1 and pino-pretty 13.2.0", () => {
    expect(installedVersion("pino")).toBe("10.4.0");
    expect(installedVersion("sonic-boom")).toBe("4.2.1");
    expect(installedVersion("pino-pretty")).toBe("13.2.0");
  });

  it("sonic-boom's periodic flush calls the stream's own flush (a replaced one included)", async () => {
    const stream = pino.destination({ dest: file(), sync: false, periodicFlush: 20, contentMode: "buffer" });
    const own = stream.flush.bind(stream);
    let calls = 0;
    stream.flush = (cb?: (err?: Error) => void) => {
      calls++;
      own(cb);
    };
    try {
      await expect.poll(() => calls, { timeout: 5000, interval: 10 }).toBeGreaterThan(0);
    } finally {
      stream.destroy();
    }
  });

  it("a buffer-mode stream writes bytes handed to it whole, multi-byte text included, on flush", async () => {
    const path = file();
    const stream = pino.destination({ dest: path, sync: false, minLength: 4096, contentMode: "buffer" });
    try {
      // Its types say text only; at run time buffer mode takes bytes.
      Reflect.apply(stream.write, stream, [Buffer.from("Zürich 北京 🌤️\n")]);
      await new Promise<void>((resolve, reject) => stream.flush((err) => (err ? reject(err) : resolve())));
      expect(readFileSync(path, "utf8")).toBe("Zürich 北京 🌤️\n");
    } finally {
      stream.destroy();
    }
  });
});
