import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ErrorCode, McpError, type Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";

/** A server pages its list as it likes; these bound what one listing may cost. */
export const LIST_LIMITS = { maxPages: 50, maxTools: 1_000 } as const;

export interface ListedTools {
  tools: McpTool[];
  /** Why the list is shorter than the server's (a bound was reached); absent when it is complete. */
  cutShort?: string;
}

/**
 * Every page of `tools/list`, within one deadline for all pages (`deadlineMs`), at most
 * `maxPages` pages and `maxTools` tools, stopping at a cursor the server already sent. Past a bound
 * it keeps what was read and says so; only a listing that read no page at all fails.
 */
export async function listAllTools(
  client: Pick<Client, "listTools">,
  deadlineMs: number,
  limits: { maxPages: number; maxTools: number } = LIST_LIMITS,
): Promise<ListedTools> {
  const deadline = Date.now() + deadlineMs;
  const tools: McpTool[] = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  for (let pages = 0; ; pages++) {
    if (pages >= limits.maxPages) return cut(tools, `the server sent more than ${limits.maxPages} pages`);
    const remaining = deadline - Date.now();
    if (remaining <= 0) return cut(tools, `listing took longer than ${deadlineMs} ms`);
    let page: Awaited<ReturnType<Client["listTools"]>>;
    try {
      page = await client.listTools(cursor ? { cursor } : undefined, { timeout: remaining });
    } catch (err) {
      const timedOut = err instanceof McpError && err.code === ErrorCode.RequestTimeout;
      if (timedOut && pages > 0) return cut(tools, `listing took longer than ${deadlineMs} ms`);
      throw err;
    }
    const room = limits.maxTools - tools.length;
    tools.push(...page.tools.slice(0, room));
    if (page.tools.length > room) return cut(tools, `the server listed more than ${limits.maxTools} tools`);
    cursor = page.nextCursor;
    if (!cursor) return { tools };
    if (cursors.has(cursor)) return cut(tools, "the server sent the same page cursor twice");
    cursors.add(cursor);
  }
}

function cut(tools: McpTool[], why: string): ListedTools {
  return { tools, cutShort: `only the first ${tools.length} tools were read: ${why}` };
}
