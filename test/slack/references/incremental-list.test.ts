import { describe, expect, it } from "vitest";
import { IncrementalList } from "../../../src/slack/references/incremental-list.ts";
import { nextRelistDelay } from "../../../src/slack/references/relist-schedule.ts";
import { waitFor } from "../../helpers/hermes-harness.ts";

type Item = { id: string; name: string };

/** A Slack list of `items`, `size` a page, counting the pages asked for. */
function source(items: () => Item[], size = 2) {
  const asked: string[] = [];
  const fetchPage = async (cursor: string) => {
    asked.push(cursor);
    const start = cursor ? Number(cursor) : 0;
    const all = items();
    const next = start + size < all.length ? String(start + size) : "";
    return { items: all.slice(start, start + size), next };
  };
  return { fetchPage, asked };
}

describe("a list loaded page by page and kept fresh", () => {
  it("re-lists in full only on its schedule; what vanished without an event drops out, events meanwhile are kept", async () => {
    let people: Item[] = [
      { id: "U1", name: "a" },
      { id: "U2", name: "b" },
      { id: "U3", name: "c" },
    ];
    const { fetchPage, asked } = source(() => people);
    let changes = 0;
    const list = new IncrementalList<Item>(fetchPage, {
      method: "users.list",
      relist: { everyMs: 60 },
      onChange: () => changes++,
    });
    try {
      expect(list.read()).toEqual({ items: [], complete: false });
      await waitFor(() => list.read().complete, 5_000, "the first complete list");
      expect(asked).toEqual(["", "2"]);
      expect(changes).toBeGreaterThanOrEqual(3); // two pages, then complete
      // An event: a rename, applied at once.
      list.update("U2", (u) => ({ ...u, name: "bee" }));
      expect(list.get("U2")?.name).toBe("bee");
      // Slack loses U3 without an event, and renames U2 for real: the scheduled re-list catches both.
      people = [people[0]!, { id: "U2", name: "bee" }];
      await waitFor(() => list.get("U3") === undefined, 5_000, "the re-list");
      expect(list.read().items.map((u) => u.id)).toEqual(["U1", "U2"]);
      expect(list.read().complete).toBe(true);
      expect(asked.slice(0, 3)).toEqual(["", "2", ""]);
    } finally {
      list.stop();
    }
  });

  it("the re-list waits for quiet hours when asked", () => {
    const at = (iso: string) => Date.parse(iso);
    const sixHours = 6 * 3_600_000;
    // Due at 16:00 UTC, quiet 01:00–05:00: it waits until 01:00 the next day.
    expect(
      nextRelistDelay(at("2026-01-01T10:00:00Z"), { everyMs: sixHours, offPeakUtc: { from: 1, to: 5 } }),
    ).toBe(at("2026-01-02T01:00:00Z") - at("2026-01-01T10:00:00Z"));
    // Due inside the window (03:30): at once when due.
    expect(
      nextRelistDelay(at("2025-12-31T21:30:00Z"), { everyMs: sixHours, offPeakUtc: { from: 1, to: 5 } }),
    ).toBe(sixHours);
    // A window across midnight (22:00–04:00), due at 12:00: 22:00 the same day.
    expect(
      nextRelistDelay(at("2026-01-01T06:00:00Z"), { everyMs: sixHours, offPeakUtc: { from: 22, to: 4 } }),
    ).toBe(at("2026-01-01T22:00:00Z") - at("2026-01-01T06:00:00Z"));
    expect(nextRelistDelay(0)).toBe(sixHours);
  });
});
