import { z } from "zod";
import { tenantKey } from "../../core/tenant.ts";
import type { Database } from "../../store/db.ts";
import { defineTool } from "../define-tool.ts";
import { failClosed } from "../fail-closed.ts";
import { fenceMemories } from "./fence-memories.ts";
import { matchScore, queryTerms } from "./match-memories.ts";
import { visibleMemories } from "./visible-memories.ts";

/** How many of the newest visible memories are searched; a team's memory is small. */
const SEARCHED = 500;
const RETURNED = 10;

/**
 * Finds the requester's own memories and this channel's memories matching a query, best first, fenced
 * as data. Never another user's private memories (excluded in SQL, see visible-memories.ts).
 */
export const recall = ({ db }: { db: Database }) =>
  defineTool({
    name: "recall",
    description: `Look up remembered facts: the requester's own and this channel's. Give words to look for (English or Chinese), or "*" for the ${RETURNED} newest.`,
    level: "viewer",
    idempotent: true,
    retries: 1,
    input: z.object({ query: z.string().trim().min(1).max(200).describe('words to look for, or "*"') }),
    examples: [{ query: "vpn gateway" }, { query: "打印机" }],
    execute: failClosed("memory store", async ({ query }, ctx) => {
      const { userId, channelId } = ctx.run;
      const tenant = tenantKey(ctx.run.teamId);
      const all = await visibleMemories({ db, tenant, userId, channelId, limit: SEARCHED });
      let found = all.slice(0, RETURNED);
      if (query !== "*") {
        const terms = queryTerms(query);
        found = all
          .map((m) => ({ m, score: matchScore(m.fact, terms) }))
          .filter((x) => x.score > 0)
          .sort((a, b) => b.score - a.score || b.m.id - a.m.id)
          .slice(0, RETURNED)
          .map((x) => x.m);
      }
      if (found.length === 0) {
        return all.length === 0 ? "Nothing has been remembered here yet." : `No memories match "${query}".`;
      }
      const what = query === "*" ? "newest memories" : `memories match "${query}"`;
      return fenceMemories(found, userId, `${found.length} ${what}.`);
    }),
  });
