/** Types for mrkdwn.js, so the TypeScript tests can import the page's parser. */

export type MrkdwnNode =
  | { type: "text"; text: string }
  | { type: "bold" | "italic" | "strike" | "quote"; children: MrkdwnNode[] }
  | { type: "code" | "pre"; text: string }
  | { type: "link"; url: string; text: string }
  | { type: "user" | "channel"; id: string; label?: string }
  | { type: "broadcast"; name: string }
  | { type: "date"; ts: number; format: string; link?: string; fallback: string }
  | { type: "emoji"; name: string; text: string };

export const EMOJI: Record<string, string>;
export function unescapeEntities(text: string): string;
export function parseMrkdwn(text: string): MrkdwnNode[];
export function parsePlain(text: string): MrkdwnNode[];
export function formatSlackDate(unixSeconds: number, format: string, now?: Date): string | undefined;
export function toSlackText(
  typed: string,
  users: ReadonlyArray<{ id: string; name: string; displayName?: string; realName?: string }>,
  channels?: ReadonlyArray<{ id: string; name?: string; isIm?: boolean }>,
  options?: { command?: boolean },
): string;
