import type { WebClient } from "@slack/web-api";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { createProgressMessage } from "../../src/slack/progress-message.ts";

/** Records chat.update calls (Slack itself is the one thing not run here). */
function recordingClient() {
  const updates: string[] = [];
  const client = {
    chat: {
      update: async ({ text }: { text: string }) => {
        updates.push(text);
        return { ok: true };
      },
    },
  } as unknown as WebClient;
  return { client, updates };
}

describe("the working message's progress", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const open = (client: WebClient) =>
    createProgressMessage({ client, channel: "C1", ts: "1.0", logger: silentLogger(), minIntervalMs: 1000 });

  it("a turn done within the interval never updates it: the answer replaces it anyway", async () => {
    const { client, updates } = recordingClient();
    const progress = open(client);
    progress.update("running create_ticket…");
    await vi.advanceTimersByTimeAsync(400);
    await progress.close();
    await vi.advanceTimersByTimeAsync(2000);
    expect(updates).toEqual([]);
  });

  it("a longer turn shows its latest step once the interval has passed, then at most once per interval", async () => {
    const { client, updates } = recordingClient();
    const progress = open(client);
    progress.update("step 1");
    progress.update("step 2");
    await vi.advanceTimersByTimeAsync(999);
    expect(updates).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(updates).toEqual(["step 2"]);
    progress.update("step 3");
    progress.update("step 4");
    await vi.advanceTimersByTimeAsync(500);
    expect(updates).toEqual(["step 2"]);
    await vi.advanceTimersByTimeAsync(500);
    expect(updates).toEqual(["step 2", "step 4"]);
    await progress.close();
  });
});
