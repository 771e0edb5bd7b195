import { z } from "zod";
import type { WorkspaceChange, WorkspaceState } from "./workspace-state.ts";

/** A file id as the emulator makes them (`F` + `[A-Z0-9]`): also the name its bytes are stored under. */
export const FILE_ID = /^F[A-Z0-9]{1,32}$/;

const ts = z.string().regex(/^\d{1,12}\.\d{6}$/);
const user = z.looseObject({ id: z.string().min(1), profile: z.looseObject({}) });
const channel = z.looseObject({ id: z.string().min(1), members: z.array(z.string()) });
const message = z.looseObject({ ts, channel: z.string().min(1), text: z.string() });
const file = z.looseObject({
  id: z.string().regex(FILE_ID),
  channels: z.array(z.string()),
  uploaded: z.boolean(),
});
const view = z.looseObject({ id: z.string() });
const selection = z.object({
  channel: z.string(),
  ts,
  user: z.string(),
  selected: z.record(z.string(), z.string()),
});
const thread = z.looseObject({ user: z.string(), channel: z.string(), threadTs: ts, status: z.string() });

const stateSchema = z.object({
  version: z.literal(1),
  lastTs: ts,
  users: z.array(user),
  channels: z.array(channel),
  messages: z.array(message),
  files: z.array(file),
  views: z.array(z.object({ user: z.string(), view })),
  feedback: z.array(selection),
  assistantThreads: z.array(thread),
});

const changeSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("user"), user }),
  z.object({ kind: z.literal("channel"), channel }),
  z.object({ kind: z.literal("message"), message }),
  z.object({ kind: z.literal("message_removed"), channel: z.string(), ts }),
  z.object({ kind: z.literal("file"), file }),
  z.object({ kind: z.literal("view"), user: z.string(), view }),
  z.object({ kind: z.literal("feedback"), selection }),
  z.object({ kind: z.literal("assistant_thread"), thread }),
]);

/** The kept state's shape checked (its records' own fields as written); undefined when it does not fit. */
export function parseWorkspaceState(value: unknown): WorkspaceState | undefined {
  const parsed = stateSchema.safeParse(value);
  return parsed.success ? (parsed.data as unknown as WorkspaceState) : undefined;
}

/** One journal line's change; undefined when it is not one. */
export function parseWorkspaceChange(value: unknown): WorkspaceChange | undefined {
  const parsed = changeSchema.safeParse(value);
  return parsed.success ? (parsed.data as unknown as WorkspaceChange) : undefined;
}
