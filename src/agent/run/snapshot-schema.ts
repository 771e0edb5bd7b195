import { z } from "zod";
import type { RunIdentity } from "../../core/run-identity.ts";
import { chatMessageSchema, type Usage } from "../context/messages.ts";
import { type FallbackSwitch, type PendingCall, type RunSnapshot, SNAPSHOT_VERSION } from "./snapshot.ts";

/**
 * The stored shape of a run (`runs.snapshot`), checked whenever a run is picked up again: a snapshot
 * is JSON written by an earlier process, perhaps an older or newer release, so it is read, never cast.
 * Each schema is typed by the interface it checks, so the two cannot drift apart.
 */

const runIdentitySchema: z.ZodType<RunIdentity> = z.object({
  runId: z.string(),
  sessionKey: z.string(),
  userId: z.string(),
  teamId: z.string().optional(),
  channelId: z.string().optional(),
  threadTs: z.string().optional(),
  timezone: z.string().optional(),
  assistantThread: z.boolean().optional(),
  viewing: z.object({ channelId: z.string(), teamId: z.string().optional() }).optional(),
  files: z
    .array(
      z.object({
        id: z.string(),
        name: z.string(),
        mime: z.string(),
        size: z.number(),
        sha256: z.string(),
        permalink: z.string().optional(),
      }),
    )
    .optional(),
});

const pendingCallSchema: z.ZodType<PendingCall> = z.object({
  callId: z.string(),
  tool: z.string(),
  args: z.record(z.string(), z.unknown()),
  argsSha256: z.string(),
  reason: z.string().optional(),
  definition: z.string().optional(),
});

const usageSchema: z.ZodType<Usage> = z.object({
  promptTokens: z.number(),
  completionTokens: z.number(),
  totalTokens: z.number(),
  requests: z.number(),
});

const fallbackSchema: z.ZodType<FallbackSwitch> = z.object({
  model: z.string(),
  from: z.string(),
  reason: z.enum(["primary_unavailable", "unreadable_output"]),
  step: z.number().int(),
});

const runSnapshotSchema: z.ZodType<RunSnapshot> = z.object({
  version: z.literal(SNAPSHOT_VERSION),
  run: runIdentitySchema,
  messages: z.array(chatMessageSchema),
  pending: z.array(pendingCallSchema),
  step: z.number().int().nonnegative(),
  usage: usageSchema,
  modelCalls: z.number().int().nonnegative(),
  failures: z.record(z.string(), z.number().int().nonnegative()),
  truncations: z.number().int().nonnegative(),
  fallback: fallbackSchema.optional(),
});

/** A stored run that this release cannot continue: its version is unknown, or it does not fit its version's shape. */
export class RunSnapshotError extends Error {
  /** The version the snapshot says it is (undefined when it says none). */
  readonly version: unknown;
  constructor(message: string, version: unknown) {
    super(message);
    this.name = "RunSnapshotError";
    this.version = version;
  }
}

/**
 * A stored snapshot, checked: its `version` first (a snapshot of another version is refused whole,
 * never read as if it were this one), then its shape. Throws one `RunSnapshotError` naming the version.
 */
export function parseRunSnapshot(value: unknown): RunSnapshot {
  const version = isRecord(value) ? value.version : undefined;
  if (version !== SNAPSHOT_VERSION) {
    const said =
      version === undefined ? "has no version" : `version ${JSON.stringify(version)} is not supported`;
    throw new RunSnapshotError(`Run snapshot ${said} (expected ${SNAPSHOT_VERSION}).`, version);
  }
  const parsed = runSnapshotSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? issue.path.join(".") : "its top level";
  throw new RunSnapshotError(
    `Run snapshot version ${SNAPSHOT_VERSION} is malformed at ${where}: ${issue?.message ?? "invalid"}.`,
    version,
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
