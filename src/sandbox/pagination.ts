import { SlackApiError } from "./api-error.ts";

export interface Page<T> {
  items: T[];
  hasMore: boolean;
  /** Slack's `response_metadata.next_cursor`: "" on the last page. */
  nextCursor: string;
}

/** Cursor pagination as Slack does it: an opaque base64 cursor, `limit` items per page. */
export function paginate<T>(
  items: readonly T[],
  {
    limit,
    cursor,
    defaultLimit = 100,
    maxLimit = 1000,
  }: {
    limit?: number;
    cursor?: string;
    defaultLimit?: number;
    maxLimit?: number;
  },
): Page<T> {
  const size = Math.min(Math.max(limit && limit > 0 ? limit : defaultLimit, 1), maxLimit);
  const start = cursor ? decodeCursor(cursor) : 0;
  const page = items.slice(start, start + size);
  const hasMore = start + size < items.length;
  return { items: page, hasMore, nextCursor: hasMore ? encodeCursor(start + size) : "" };
}

function encodeCursor(offset: number): string {
  return Buffer.from(`next:${offset}`).toString("base64");
}

function decodeCursor(cursor: string): number {
  const match = /^next:(\d+)$/.exec(Buffer.from(cursor, "base64").toString("utf8"));
  if (!match?.[1]) throw new SlackApiError("invalid_cursor");
  return Number(match[1]);
}
