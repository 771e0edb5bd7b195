import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "../src/logger.ts";
import { redact } from "../src/policy/redact.ts";

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
