/** Types of thread-link.js for the tests that import it. */

interface ThreadLinkWorkspace {
  channelById?: { has(id: string): boolean };
  messages?: { has(key: string): boolean };
}

export function threadLinkState(
  ws: ThreadLinkWorkspace | null | undefined,
  channel: string | null | undefined,
  ts: string | null | undefined,
): "none" | "gone" | "open";

export function ThreadLink(props: { channel?: string | null; ts?: string | null }): unknown;
