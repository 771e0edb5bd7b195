import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isHermesError } from "../../src/core/errors.ts";
import { type AuditLog, createAuditLog } from "../../src/store/audit.ts";
import type { AuditRow } from "../../src/store/audit-chain.ts";
import type { AuditQuery } from "../../src/store/audit-query.ts";
import type { AuditAction } from "../../src/store/schema.ts";
import { DRIVERS, openTestStore, type TestStore } from "../helpers/pg.ts";

const USERS = ["U0ALICE", "U0BOB", "U0CAROL"];
const TOOLS = ["create_ticket", "send_message", "get_ticket"];
const ACTIONS: AuditAction[] = ["tool.requested", "tool.executed", "tool.failed"];

/** Every page of a query, following `nextCursor` until it is absent. */
async function allPages(audit: AuditLog, query: AuditQuery) {
  const pages: AuditRow[][] = [];
  let cursor = query.cursor;
  do {
    const page = await audit.query({ ...query, cursor });
    pages.push(page.rows);
    cursor = page.nextCursor;
  } while (cursor && pages.length < 100);
  return pages;
}

describe.each(DRIVERS)("audit query on %s", (kind) => {
  let store: TestStore;
  let audit: AuditLog;
  /** Three groups of 21 rows, 30 ms apart, so time bounds can fall between groups. */
  const groups: AuditRow[][] = [];
  const all = () => groups.flat().sort((a, b) => b.id - a.id);

  beforeAll(async () => {
    store = await openTestStore(kind);
    audit = createAuditLog(store.handle);
    for (let g = 0; g < 3; g++) {
      const rows: AuditRow[] = [];
      for (let i = 0; i < 21; i++) {
        rows.push(
          await audit.append({
            action: ACTIONS[i % 3] as AuditAction,
            tool: TOOLS[Math.floor(i / 3) % 3] as string,
            userId: USERS[i % 3],
            // Decisions by Carol on Alice's calls: `user` matches the decider too.
            actorId: i % 7 === 0 ? "U0CAROL" : null,
          }),
        );
      }
      groups.push(rows);
      await sleep(30);
    }
  });
  afterAll(() => store?.cleanup());

  it("returns newest first, 50 by default", async () => {
    const page = await audit.query();
    expect(page.rows.map((r) => r.id)).toEqual(
      all()
        .slice(0, 50)
        .map((r) => r.id),
    );
    expect(page.nextCursor).toBeTypeOf("string");
  });

  it("filters by user (requester or decider), tool and action", async () => {
    const ids = (rows: AuditRow[]) => rows.map((r) => r.id);
    const page = async (q: AuditQuery) => ids((await audit.query({ ...q, limit: 1000 })).rows);
    expect(await page({ user: "U0BOB" })).toEqual(ids(all().filter((r) => r.userId === "U0BOB")));
    expect(await page({ user: "U0CAROL" })).toEqual(
      ids(all().filter((r) => r.userId === "U0CAROL" || r.actorId === "U0CAROL")),
    );
    expect(await page({ tool: "send_message", action: "tool.failed" })).toEqual(
      ids(all().filter((r) => r.tool === "send_message" && r.action === "tool.failed")),
    );
    expect(await page({ action: ["tool.failed", "tool.executed"] })).toEqual(
      ids(all().filter((r) => r.action !== "tool.requested")),
    );
    expect(await page({ user: "U0NOBODY" })).toEqual([]);
  });

  it("since is inclusive and until exclusive", async () => {
    const second = groups[1] ?? [];
    const third = groups[2] ?? [];
    const since = new Date(second[0]?.createdAt ?? "");
    const until = new Date(third[0]?.createdAt ?? "");
    // Postgres keeps microseconds, a Date milliseconds: the truncated bound still includes the row.
    const { rows } = await audit.query({ since, until, limit: 1000 });
    expect(rows.map((r) => r.id)).toEqual(second.map((r) => r.id).reverse());
    const sinceOnly = await audit.query({ since: until.toISOString(), limit: 1000 });
    expect(sinceOnly.rows.map((r) => r.id)).toEqual(third.map((r) => r.id).reverse());
  });

  it.each([1, 7, 10, 63, 64])("pages of %i cover every row once, in order", async (limit) => {
    const pages = await allPages(audit, { limit });
    expect(pages.flat().map((r) => r.id)).toEqual(all().map((r) => r.id));
    expect(pages.slice(0, -1).every((p) => p.length === limit)).toBe(true);
    expect(pages.at(-1)?.length).toBeGreaterThan(0);
  });

  it("paginates a filtered query without duplicates or gaps", async () => {
    const pages = await allPages(audit, { user: "U0ALICE", action: "tool.requested", limit: 4 });
    expect(pages.flat().map((r) => r.id)).toEqual(
      all()
        .filter((r) => r.userId === "U0ALICE" && r.action === "tool.requested")
        .map((r) => r.id),
    );
  });

  it("rows appended between pages do not shift later pages", async () => {
    const first = await audit.query({ limit: 5, tool: "get_ticket" });
    expect(first.nextCursor).toBeDefined();
    await audit.append({ action: "tool.executed", tool: "get_ticket", userId: "U0ALICE" });
    const rest = await allPages(audit, { limit: 5, tool: "get_ticket", cursor: first.nextCursor });
    const seen = [...first.rows, ...rest.flat()].map((r) => r.id);
    expect(seen).toEqual(
      all()
        .filter((r) => r.tool === "get_ticket")
        .map((r) => r.id),
    );
  });

  it("refuses a forged cursor and a bad limit with a readable error", async () => {
    for (const query of [
      { cursor: "not-a-cursor" },
      { cursor: Buffer.from("[1,2]").toString("base64url") },
    ]) {
      const err = await audit.query(query).catch((e: unknown) => e);
      expect(isHermesError(err, "bad_request")).toBe(true);
    }
    const err = await audit.query({ limit: 5000 }).catch((e: unknown) => e);
    expect(isHermesError(err, "bad_request") && err.message).toMatch(/limit/);
  });
});
