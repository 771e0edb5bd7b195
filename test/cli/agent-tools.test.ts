import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { openDatabase } from "../../src/store/db.ts";
import { sql } from "../../src/store/drizzle.ts";
import { PROCESS_TEST_TIMEOUT_MS, runProcess } from "../helpers/child-process.ts";
import { baseEnv } from "../helpers/npm-start.ts";
import { answer, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";
import { readmePrompts } from "./front-door-prompts.ts";

const README = readFileSync(join(import.meta.dirname, "..", "..", "README.md"), "utf8");
const EXAMPLE = readmePrompts(README).find((p) => p.source.endsWith("(the example task)"))?.text ?? "";

describe("npm run agent runs the bot's own tools against an embedded store", () => {
  const server = new ScriptedModelServer();
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "hermes-agent-tools-"));
    await server.start();
  });
  afterAll(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const agent = (args: string[]) =>
    runProcess(process.execPath, ["src/cli/agent.ts", ...args], {
      env: {
        ...baseEnv(),
        OPENAI_BASE_URL: server.baseURL,
        HERMES_MODEL: "scripted",
        HERMES_DATA_DIR: join(dir, "home"),
      },
    });

  it("the README's example opens a real ticket and, approved, messages Wang Lei; unapproved, the message is not sent", {
    timeout: PROCESS_TEST_TIMEOUT_MS,
  }, async () => {
    expect(EXAMPLE).toContain("open a ticket");
    const store = join(dir, "store");
    const script = () =>
      server.enqueue(
        toolCalls([{ name: "create_ticket", args: { title: "VPN outage", priority: "high" } }]),
        toolCalls([{ name: "send_message", args: { to: "Wang Lei", text: "I'll join at three." } }]),
        answer("Opened the ticket and told Wang Lei."),
      );
    script();
    const approved = await agent([EXAMPLE, "--approve", "--data-dir", store]);
    const out = approved.stdout + approved.stderr;
    expect(approved.code, out).toBe(0);
    expect(out).toContain("U0USER1 (user) with");
    expect(out).toContain("✓ create_ticket");
    expect(out).toContain("✓ send_message");

    script();
    const unapproved = await agent([EXAMPLE, "--data-dir", store]);
    expect(unapproved.stdout).toContain("✗ not approved: send_message");

    const handle = await openDatabase({ dataDir: store, logger: silentLogger() });
    try {
      const tickets = await handle.db.execute<{ title: string; priority: string; created_by: string }>(
        sql`select title, priority, created_by from tickets where title = 'VPN outage' order by id`,
      );
      expect(tickets.rows).toEqual([
        { title: "VPN outage", priority: "high", created_by: "U0USER1" },
        { title: "VPN outage", priority: "high", created_by: "U0USER1" },
      ]);
      const sends = await handle.db.execute<{ action: string }>(
        sql`select action from audit_log where tool = 'send_message' and action <> 'tool.requested' order by id`,
      );
      expect(sends.rows.map((r) => r.action)).toEqual(["tool.executed"]);
    } finally {
      await handle.close();
    }
  });
});
