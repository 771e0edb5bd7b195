import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { type DatabaseHandle, openDatabase } from "../../src/store/db.ts";
import { createMemoryTools } from "../../src/tools/memory/memory-tools.ts";
import { ticketReport } from "../../src/tools/reports/ticket-report.ts";
import { createTicketTools } from "../../src/tools/tickets/ticket-tools.ts";
import { DRIVERS, type DriverKind, openTestStore } from "../helpers/pg.ts";
import { run, type SlackSandbox, startSlackSandbox, toolCaller } from "./tool-harness.ts";

/** A database that is not there: Postgres on a port nobody listens on, or a PGlite already closed. */
async function unreachable(kind: DriverKind): Promise<{ handle: DatabaseHandle; cleanup(): Promise<void> }> {
  if (kind === "postgres") {
    const handle = await openDatabase({
      databaseUrl: "postgres://postgres@127.0.0.1:1/hermes_gone",
      dataDir: "",
      logger: silentLogger(),
    });
    return { handle, cleanup: () => handle.close() };
  }
  const store = await openTestStore("pglite");
  await store.handle.close();
  return { handle: store.handle, cleanup: () => store.cleanup() };
}

describe.each(DRIVERS)("tools with %s down fail closed", (kind) => {
  let db: Awaited<ReturnType<typeof unreachable>>;
  let sandbox: SlackSandbox;
  beforeAll(async () => {
    db = await unreachable(kind);
    sandbox = await startSlackSandbox();
  });
  afterAll(async () => {
    await sandbox.stop();
    await db.cleanup();
  });

  it("every tool answers one clear sentence, without the driver's text", async () => {
    const deps = { db: db.handle.db, slack: sandbox.slack, isAdmin: () => true };
    const call = toolCaller([...createTicketTools(deps), ...createMemoryTools(deps), ticketReport(deps)]);
    const calls: Array<[string, Record<string, unknown>, string]> = [
      ["create_ticket", { title: "VPN down" }, "ticket database"],
      ["get_ticket", { id: 1 }, "ticket database"],
      ["search_tickets", { query: "vpn" }, "ticket database"],
      ["update_ticket", { id: 1, status: "closed" }, "ticket database"],
      ["delete_ticket", { id: 1 }, "ticket database"],
      ["ticket_report", { period: "7d" }, "ticket database"],
      ["remember", { fact: "Standup is at ten" }, "memory store"],
      ["recall", { query: "standup" }, "memory store"],
    ];
    for (const [name, args, what] of calls) {
      const result = await call(name, args, run("U0USER1"));
      expect(result.ok).toBe(false);
      expect(result.content).toBe(
        `Error from ${name}: The ${what} is unavailable right now, so nothing was changed. Try again in a moment.`,
      );
    }
    expect(sandbox.threadFiles()).toEqual([]);
  });
});
