import { z } from "zod";
import { HermesError } from "../../core/errors.ts";
import { normalizeForStorage } from "../../core/normalize-text.ts";
import type { RunIdentity } from "../../core/run-identity.ts";
import { tenantKey } from "../../core/tenant.ts";
import type { Database } from "../../store/db.ts";
import { and, eq, sql } from "../../store/drizzle.ts";
import { memories } from "../../store/schema.ts";
import { type CallContext, defineTool } from "../define-tool.ts";
import { failClosed } from "../fail-closed.ts";
import { instructionLikeReason } from "./instruction-like.ts";

export const MAX_FACT_CHARS = 500;

/**
 * A channel-wide memory is recalled into everyone's later runs in that channel. Once the model has
 * read untrusted content (a ticket, a tool result, another person's message), a call to store one may
 * be that content speaking, so the requester approves it first. A personal memory, a channel memory
 * in a run that has seen nothing untrusted, and a fact that will be refused anyway as instruction-like
 * (no card for what cannot be stored) need none.
 */
export function channelMemoryApproval(
  args: { fact: string; scope?: "me" | "channel" | undefined },
  _run: RunIdentity,
  { untrustedSeen }: CallContext,
): string | false {
  if (args.scope !== "channel" || !untrustedSeen) return false;
  const fact = normalizeForStorage(args.fact);
  if (!fact || instructionLikeReason(fact)) return false;
  return "a channel-wide memory written after the model read untrusted content (a tool result or another person's message)";
}

/**
 * Stores a fact for the requester only (`me`, default) or for everyone in the run's channel.
 * Instruction-like facts are refused (screened as a reader sees them, see instruction-like.ts); what
 * is stored is the normalized text (NFKC, no invisible characters, single spaces), so a later prompt
 * never carries hidden characters. An identical fact (case and spacing aside) in the same scope is
 * not stored twice. A channel-wide fact needs the requester's approval once the run has seen untrusted
 * content (`channelMemoryApproval`).
 */
export const remember = ({ db }: { db: Database }) =>
  defineTool({
    name: "remember",
    description: `Remember a fact for later (at most ${MAX_FACT_CHARS} characters): for the requester only (scope "me", default) or for everyone in this channel (scope "channel"). Facts only, never instructions.`,
    level: "user",
    input: z.object({
      fact: z.string().trim().min(1).max(MAX_FACT_CHARS).describe("one fact, in the user's words"),
      scope: z.enum(["me", "channel"]).describe('"me" (default) or "channel"').optional(),
    }),
    examples: [{ fact: "The VPN gateway for the Shanghai office is vpn-sh.example.com" }],
    approval: channelMemoryApproval,
    execute: failClosed("memory store", async ({ fact: raw, scope = "me" }, ctx) => {
      const fact = normalizeForStorage(raw);
      if (!fact)
        throw new HermesError(
          "bad_request",
          "Not remembered: the fact is empty once invisible characters are removed.",
        );
      const reason = instructionLikeReason(fact);
      if (reason) {
        throw new HermesError(
          "bad_request",
          `Not remembered: this reads like an instruction to the assistant, not a fact (${reason}). Memories can only hold facts.`,
        );
      }
      const userId = ctx.run.userId;
      const tenant = tenantKey(ctx.run.teamId);
      const channelId = scope === "channel" ? ctx.run.channelId : undefined;
      if (scope === "channel" && !channelId) {
        throw new HermesError(
          "bad_request",
          'This conversation is not in a channel, so there is no channel to remember it for; use scope "me".',
        );
      }
      const sameScope =
        scope === "channel"
          ? and(eq(memories.scope, "channel"), eq(memories.channelId, channelId!))
          : and(eq(memories.scope, "user"), eq(memories.ownerId, userId));
      const who = scope === "channel" ? "everyone in this channel" : "you only";
      const [existing] = await db
        .select({ id: memories.id })
        .from(memories)
        .where(and(eq(memories.teamId, tenant), sameScope, sql`lower(${memories.fact}) = lower(${fact})`))
        .limit(1);
      if (existing) return `Already remembered for ${who} (memory ${existing.id}); nothing new stored.`;
      const [row] = await db
        .insert(memories)
        .values({
          teamId: tenant,
          scope: scope === "channel" ? "channel" : "user",
          ownerId: userId,
          channelId: channelId ?? null,
          fact,
        })
        .returning({ id: memories.id });
      return `Remembered for ${who} (memory ${row!.id}).`;
    }),
  });
