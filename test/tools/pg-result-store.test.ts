import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { fetchResult } from "../../src/tools/fetch-result.ts";
import { createPgResultStore } from "../../src/tools/pg-result-store.ts";
import type { ResultStore } from "../../src/tools/result-store.ts";
import { DRIVERS, openTestStore, type TestStore } from "../helpers/pg.ts";

const entry = {
  runId: "run_1",
  sessionKey: "T01:C01:1700000000.000100",
  toolCallId: "call_1",
  tool: "ticket_report",
  content: `${"row ".repeat(5000)}结束`,
};

describe.each(DRIVERS)("Postgres result store on %s", (kind) => {
  let store: TestStore;
  let results: ResultStore;
  beforeAll(async () => {
    store = await openTestStore(kind);
    results = createPgResultStore(store.handle);
  });
  afterAll(() => store?.cleanup());

  it("keeps a full result by an unguessable ref", async () => {
    const ref = await results.put(entry);
    expect(ref).toMatch(/^res_[A-Za-z0-9_-]{12,}$/);
    expect(await results.get(ref)).toEqual({ ref, ...entry });
    expect(await results.get("res_unknown")).toBeUndefined();
  });

  it("stores text Postgres would refuse (NUL, lone surrogates) with U+FFFD instead", async () => {
    const ref = await results.put({ ...entry, content: "a\u0000b\uD800c" });
    expect((await results.get(ref))?.content).toBe("a\uFFFDb\uFFFDc");
  });

  it("fetch_result reads it back from its own conversation only", async () => {
    const ref = await results.put(entry);
    const tool = fetchResult(results);
    const ctx = (sessionKey: string) => ({
      run: { runId: "run_2", sessionKey, userId: "U0A" },
      callId: "call_9",
      signal: new AbortController().signal,
      logger: silentLogger(),
    });
    const page = await tool.execute({ ref, offset: 0, length: 12 }, ctx(entry.sessionKey));
    expect(page).toContain("row row row ");
    await expect(tool.execute({ ref }, ctx("T01:C02:1"))).rejects.toThrow("in this conversation");
  });
});
