import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { bufferedDestination, createLogger } from "../src/logger.ts";
import { redact } from "../src/policy/redact.ts";
import { waitFor } from "./helpers/hermes-harness.ts";

describe("createLogger with redaction", () => {
  it("redacts PII and secrets in fields and in the message itself", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    const log = createLogger({ level: "info", destination: sink, redact });
    log
      .child({ runId: "r1", sessionKey: "T:C:1", tool: "send_message" })
      .info(
        { args: { to: "alice@example.com", token: "xoxb-123-456-abcdef" } },
        "mail alice@example.com from +86 138 0013 8000",
      );
    await new Promise((r) => setTimeout(r, 10));
    const out = lines.join("");
    expect(out).not.toContain("alice@example.com");
    expect(out).not.toContain("xoxb-123");
    expect(out).not.toContain("138 0013 8000");
    const row = JSON.parse(lines[0]!);
    expect(row).toMatchObject({
      runId: "r1",
      sessionKey: "T:C:1",
      tool: "send_message",
      msg: "mail [email] from [phone]",
    });
    expect(row.args).toEqual({ to: "[email]", token: "[secret]" });
  });
});

describe("the buffered log destination", () => {
  it("writes a quiet process's last line without waiting for 4 KiB or the exit", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hermes-log-"));
    const file = join(dir, "hermes.log");
    const destination = bufferedDestination(file);
    try {
      const log = createLogger({ level: "info", destination });
      log.warn({ jobId: "turn:Ev1" }, "continuing a turn whose worker died");
      // One short line is far below the buffer's 4 KiB: only the periodic flush writes it.
      const written = await waitFor(
        () => {
          const text = readFileSync(file, "utf8");
          return text.includes("continuing a turn whose worker died") ? text : undefined;
        },
        30_000,
        "the line in the file",
      );
      expect(JSON.parse(written.trim())).toMatchObject({ level: 40, jobId: "turn:Ev1" });
    } finally {
      (destination as unknown as { destroy(): void }).destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
