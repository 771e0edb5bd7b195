import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emptyUsage } from "../../src/agent/context/messages.ts";
import { type RunSnapshot, SNAPSHOT_VERSION } from "../../src/agent/run/snapshot.ts";
import { isHermesError } from "../../src/core/errors.ts";
import { createEventDedupe } from "../../src/store/event-dedupe.ts";
import { createRunStore, type RunStore } from "../../src/store/run-store.ts";
import { DRIVERS, openTestStore, type TestStore } from "../helpers/pg.ts";

const snapshot = (runId: string, sessionKey = "T01:C01:1700000000.000100"): RunSnapshot => ({
  version: SNAPSHOT_VERSION,
  run: { runId, sessionKey, userId: "U0REQ", teamId: "T01", channelId: "C01", threadTs: "1700000000.000100" },
  messages: [
    { role: "system", content: "You are Hermes." },
    { role: "user", content: "给 #ops 发消息: deploy done ✅ — and delete ticket 42" },
    {
      role: "assistant",
      content: "",
      toolCalls: [
        { id: "call_1", name: "get_ticket", arguments: '{"id":42}' },
        { id: "call_2", name: "send_message", arguments: '{"channel":"C0OPS","text":"deploy done ✅"}' },
      ],
    },
    {
      role: "tool",
      toolCallId: "call_1",
      name: "get_ticket",
      content: '{"id":42,"title":"VPN"}',
      resultRef: "res_x",
    },
  ],
  pending: [
    {
      callId: "call_2",
      tool: "send_message",
      args: {
        channel: "C0OPS",
        text: "deploy done ✅",
        nested: { n: [1, 2.5, -0.125, 1e21], ok: true, none: null },
      },
      argsSha256: "a".repeat(64),
      reason: "posts to a channel",
    },
  ],
  step: 3,
  usage: { ...emptyUsage(), promptTokens: 1234, completionTokens: 56, totalTokens: 1290, requests: 3 },
  modelCalls: 3,
  failures: { get_ticket: 1 },
  truncations: 0,
});

describe.each(DRIVERS)("run store on %s", (kind) => {
  let store: TestStore;
  let runs: RunStore;
  beforeAll(async () => {
    store = await openTestStore(kind, { maxConnections: 10 });
    runs = createRunStore(store.handle);
  });
  afterAll(() => store?.cleanup());

  it("saves a paused run; the snapshot comes back equal (JSON round trip)", async () => {
    const snap = snapshot("run_rt");
    await runs.savePaused(snap);
    const record = await runs.get("run_rt");
    expect(record).toMatchObject({ runId: "run_rt", status: "paused", userId: "U0REQ" });
    expect(record?.snapshot).toEqual(JSON.parse(JSON.stringify(snap)));
    expect(await runs.get("run_missing")).toBeUndefined();
  });

  it("10 concurrent claimForResume calls: exactly one gets the snapshot", async () => {
    const snap = snapshot("run_race");
    await runs.savePaused(snap);
    const claims = await Promise.all(Array.from({ length: 10 }, () => runs.claimForResume("run_race")));
    const won = claims.filter((c) => c !== undefined);
    expect(won).toHaveLength(1);
    expect(won[0]).toEqual(JSON.parse(JSON.stringify(snap)));
    expect((await runs.get("run_race"))?.status).toBe("running");
    expect(await runs.claimForResume("run_race")).toBeUndefined();
    expect(await runs.claimForResume("run_missing")).toBeUndefined();
  });

  it("a resumed run may pause again with a new snapshot, and resume once more", async () => {
    await runs.savePaused(snapshot("run_again"));
    expect(await runs.claimForResume("run_again")).toBeDefined();
    const next = { ...snapshot("run_again"), step: 5, pending: [] };
    await runs.savePaused(next);
    expect(await runs.claimForResume("run_again")).toMatchObject({ step: 5, pending: [] });
  });

  it("a finished run cannot be claimed or paused again", async () => {
    await runs.savePaused(snapshot("run_done"));
    expect(await runs.finish("run_done", "completed")).toBe(true);
    expect(await runs.finish("run_missing", "failed")).toBe(false);
    expect(await runs.claimForResume("run_done")).toBeUndefined();
    const err = await runs.savePaused(snapshot("run_done")).catch((e: unknown) => e);
    expect(isHermesError(err, "bad_request")).toBe(true);
    expect((await runs.get("run_done"))?.status).toBe("completed");
  });

  it("commits with the caller's transaction or not at all", async () => {
    await expect(
      store.handle.db.transaction(async (tx) => {
        await runs.savePaused(snapshot("run_tx"), tx);
        throw new Error("approval insert failed");
      }),
    ).rejects.toThrow("approval insert failed");
    expect(await runs.get("run_tx")).toBeUndefined();
  });

  it("lists paused runs, and the latest paused run of a session", async () => {
    const session = "T01:C0LIST:1700000000.000300";
    await runs.savePaused(snapshot("run_list_a", session));
    await new Promise((r) => setTimeout(r, 5));
    await runs.savePaused(snapshot("run_list_b", session));
    const paused = (await runs.listWithStatus("paused")).map((r) => r.runId);
    expect(paused).toEqual(expect.arrayContaining(["run_list_a", "run_list_b", "run_rt"]));
    expect(paused).not.toContain("run_done");
    expect(paused.indexOf("run_list_a")).toBeLessThan(paused.indexOf("run_list_b"));
    expect((await runs.latestPausedForSession(session))?.runId).toBe("run_list_b");
    await runs.claimForResume("run_list_b");
    expect((await runs.latestPausedForSession(session))?.runId).toBe("run_list_a");
    expect(await runs.latestPausedForSession("T01:C0NONE:1")).toBeUndefined();
  });

  it("a turn's start read answers as the event's status read and the run-by-event read do", async () => {
    const events = createEventDedupe(store.handle);
    const both = async (eventId: string) => {
      const [finished, run] = await Promise.all([events.isFinished(eventId), runs.forEvent(eventId)]);
      return { finished, run };
    };
    const claim = (eventId: string) => events.claim(eventId, { staleAfterMs: 60_000, payload: { eventId } });
    const cases: Array<[string, () => Promise<unknown>]> = [
      ["Ev_st_none", async () => undefined],
      ["Ev_st_claimed", () => claim("Ev_st_claimed")],
      [
        "Ev_st_running",
        async () => {
          await claim("Ev_st_running");
          await runs.checkpoint({ ...snapshot("run_st_running"), pending: [] }, { eventId: "Ev_st_running" });
        },
      ],
      [
        "Ev_st_done",
        async () => {
          await claim("Ev_st_done");
          await runs.checkpoint({ ...snapshot("run_st_done"), pending: [] }, { eventId: "Ev_st_done" });
          await runs.finish("run_st_done", "completed");
          await events.finish("Ev_st_done", "done");
        },
      ],
      [
        "Ev_st_failed",
        async () => {
          await claim("Ev_st_failed");
          await events.finish("Ev_st_failed", "failed");
        },
      ],
      // A run whose event has no row (e.g. removed by retention).
      [
        "Ev_st_orphan",
        () => runs.checkpoint({ ...snapshot("run_st_orphan"), pending: [] }, { eventId: "Ev_st_orphan" }),
      ],
    ];
    const seen: Array<[string, boolean, string | undefined]> = [];
    for (const [eventId, setUp] of cases) {
      await setUp();
      const combined = await runs.forEventTurn(eventId);
      expect(combined).toEqual(await both(eventId));
      seen.push([eventId, combined.finished, combined.run?.status]);
    }
    expect(seen).toEqual([
      ["Ev_st_none", false, undefined],
      ["Ev_st_claimed", false, undefined],
      ["Ev_st_running", false, "running"],
      ["Ev_st_done", true, "completed"],
      ["Ev_st_failed", true, undefined],
      ["Ev_st_orphan", false, "running"],
    ]);
    const running = await runs.forEventTurn("Ev_st_running");
    expect(running.run?.createdAt).toBeInstanceOf(Date);
    expect(running.run?.snapshot).toEqual({ ...snapshot("run_st_running"), pending: [] });
  });

  it("checkpoints a running run by event, updates it while running, refuses once it paused or finished", async () => {
    const first = { ...snapshot("run_cp"), pending: [], step: 0 };
    expect(await runs.checkpoint(first, { eventId: "Ev_cp" })).toBe(true);
    const stored = await runs.forEvent("Ev_cp");
    expect(stored).toMatchObject({ runId: "run_cp", status: "running", eventId: "Ev_cp" });
    expect(stored?.snapshot).toEqual(first);
    // A later checkpoint (no event id given: a resume) keeps the event and replaces the state.
    const later = { ...first, step: 2 };
    expect(await runs.checkpoint(later)).toBe(true);
    expect((await runs.forEvent("Ev_cp"))?.snapshot.step).toBe(2);
    expect((await runs.listWithStatus("running")).map((r) => r.runId)).toContain("run_cp");

    // Paused, then finished with its final state: a late checkpoint of a dead worker changes nothing.
    await runs.savePaused(snapshot("run_cp"));
    expect(await runs.checkpoint(later)).toBe(false);
    expect((await runs.get("run_cp"))?.status).toBe("paused");
    const final = { ...later, step: 3, pending: [] };
    expect(await runs.finish("run_cp", "completed", final)).toBe(true);
    expect(await runs.checkpoint(later)).toBe(false);
    const done = await runs.get("run_cp");
    expect(done).toMatchObject({ status: "completed", eventId: "Ev_cp" });
    expect(done?.snapshot.step).toBe(3);
    expect((await runs.listWithStatus("running")).map((r) => r.runId)).not.toContain("run_cp");
    expect(await runs.forEvent("Ev_none")).toBeUndefined();
  });

  it("checkpoints, pauses and finishes store text Postgres refuses (NUL, lone surrogates) as U+FFFD, the rest as sent", async () => {
    const hostile = 'nul \u0000 lone \ud800 and \udc00, pair \ud83d\ude00, quote " backslash \\ tab \t';
    const stored = 'nul \ufffd lone \ufffd and \ufffd, pair \ud83d\ude00, quote " backslash \\ tab \t';
    const withText = (runId: string, text: string, step: number): RunSnapshot => {
      const base = snapshot(runId);
      return {
        ...base,
        messages: [...base.messages, { role: "user", content: text }],
        pending: [],
        step,
        failures: { [text]: 1 },
      };
    };
    expect(await runs.checkpoint(withText("run_hostile", hostile, 1), { eventId: "Ev_hostile" })).toBe(true);
    expect((await runs.forEvent("Ev_hostile"))?.snapshot).toEqual(withText("run_hostile", stored, 1));
    await runs.savePaused({ ...withText("run_hostile", hostile, 2), pending: snapshot("x").pending });
    expect((await runs.get("run_hostile"))?.snapshot).toEqual(
      JSON.parse(JSON.stringify({ ...withText("run_hostile", stored, 2), pending: snapshot("x").pending })),
    );
    expect(await runs.finish("run_hostile", "completed", withText("run_hostile", hostile, 3))).toBe(true);
    // A finished run keeps no messages but its final answer (here none: the last is the user's).
    expect((await runs.get("run_hostile"))?.snapshot).toEqual({
      ...withText("run_hostile", stored, 3),
      messages: [],
      pending: [],
    });
  });
});
