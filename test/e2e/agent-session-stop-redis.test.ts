import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentSessionsOf } from "../../src/sandbox/agent-sessions.ts";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { execSql } from "../helpers/pg.ts";
import { answer, ScriptedModelServer } from "../helpers/scripted-model.ts";
import { botReplies } from "../helpers/slack-thread.ts";

const USER = "U0USER1";
const DM = "D0USER1";

/**
 * With Redis (queue, sessions, locks), the user's Stop travels as it does between a receiver and a
 * worker: published on Redis, kept in a key, and it aborts the run's model call in flight.
 */
describe("Stop on an agent session, with Redis", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({ model, redis: true });
  }, 180_000);
  afterAll(async () => {
    await t?.stop();
    await model.stop();
  });

  it("aborts the model call in flight and closes the session", async () => {
    model.enqueue({
      ...(answer("Too late.") as { completion: Record<string, unknown> }),
      delayMs: 60_000,
    });
    const d = await t.sender.agentMessage({ user: USER, text: "think hard" });
    const ts = d.message!.ts;
    await waitFor(() => model.requests.length === 1, 30_000, "the model call");
    await t.sender.agentSessionStopped({ user: USER, channel: DM, threadTs: ts });
    await waitFor(
      async () =>
        (
          await execSql<{ status: string }>(
            t.hermes.services.storage.db.db,
            `select status from runs where session_key like '%:${ts}'`,
          )
        )[0]?.status === "stopped",
      30_000,
      "the run stopped",
    );
    await waitFor(() => agentSessionsOf(t.ws).get(DM, ts)?.status === "closed", 10_000, "the session closed");
    expect(botReplies(t, DM, ts).some((m) => m.text === "Too late.")).toBe(false);
  });
});
