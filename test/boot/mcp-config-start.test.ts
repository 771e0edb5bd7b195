import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PROCESS_TEST_TIMEOUT_MS, startProcess } from "../helpers/child-process.ts";

/** `HERMES_MCP_SERVERS` is read before anything starts: a bad file stops the process with one message. */
describe("a bad HERMES_MCP_SERVERS file", () => {
  it(
    "stops start-up: the process exits non-zero and names each server and field",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "hermes-mcp-config-"));
      const file = join(dir, "mcp.yaml");
      writeFileSync(
        file,
        [
          "- name: tracker",
          "  transport: stdio",
          "  level: superuser",
          "- name: wiki",
          "  transport: http",
          "  url: https://wiki.internal/mcp",
          "  trusted: yes please",
        ].join("\n"),
      );
      const hermes = startProcess(process.execPath, ["src/main.ts"], {
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          PORT: "0",
          HERMES_DATA_DIR: join(dir, "data"),
          HERMES_LOG_LEVEL: "silent",
          HERMES_MCP_SERVERS: file,
        },
        removeOnStop: [dir],
      });
      try {
        const status = await hermes.exited;
        expect(status.code).toBe(2);
        const out = hermes.output();
        expect(out).toContain(`HERMES_MCP_SERVERS ${file} is invalid:`);
        expect(out).toContain('server #1 "tracker": command: is required');
        expect(out).toMatch(/server #1 "tracker": level: /);
        expect(out).toMatch(/server #2 "wiki": trusted: /);
        expect(out).not.toContain("Hermes is running");
        // Read before storage: no embedded database was created for a start that could not happen.
        expect(existsSync(join(dir, "data"))).toBe(false);
      } finally {
        await hermes.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
