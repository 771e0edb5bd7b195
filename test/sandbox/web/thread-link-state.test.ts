import { describe, expect, it } from "vitest";
import { threadLinkState } from "../../../src/sandbox/web/public/thread-link.js";

/** The page's link to a run's or an audit row's thread, decided from what the viewer's page holds. */
describe("threadLinkState", () => {
  const ws = {
    channelById: new Map([["C0OPS", {}]]),
    messages: new Map([["C0OPS:1764420000.000100", {}]]),
  };

  it("opens a thread whose messages are in the workspace", () => {
    expect(threadLinkState(ws, "C0OPS", "1764420000.000100")).toBe("open");
  });

  it("says a thread is gone when its messages are not (a fresh workspace, a deleted message)", () => {
    expect(threadLinkState(ws, "C0OPS", "1764420000.000200")).toBe("gone");
  });

  it("shows nothing for a channel the viewer is not in, or without a thread", () => {
    expect(threadLinkState(ws, "C0SECRET", "1764420000.000100")).toBe("none");
    expect(threadLinkState(ws, "C0OPS", null)).toBe("none");
    expect(threadLinkState(ws, null, "1764420000.000100")).toBe("none");
    expect(threadLinkState(null, "C0OPS", "1764420000.000100")).toBe("none");
  });
});
