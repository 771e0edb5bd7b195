import { z } from "zod";

const LEVELS = ["viewer", "user", "admin"] as const;

/**
 * How one argument is checked: a bare scalar (or array/object) must equal the argument exactly;
 * `{ regex, flags? }` must match its text; `{ one_of: [...] }` must equal one of the values;
 * `{ absent: true }` means the argument must not be given.
 */
export const argMatcherSchema = z.union([
  z.strictObject({
    regex: z.string().min(1),
    flags: z
      .string()
      .regex(/^[imsu]*$/)
      .optional(),
  }),
  z.strictObject({ one_of: z.array(z.unknown()).min(1) }),
  z.strictObject({ absent: z.literal(true) }),
  z.strictObject({ exact: z.unknown() }),
  z.union([z.string(), z.number(), z.boolean(), z.null()]),
]);
export type ArgMatcher = z.infer<typeof argMatcherSchema>;

const expectedCallSchema = z.strictObject({
  tool: z.string().min(1),
  args: z.record(z.string(), argMatcherSchema).optional(),
});
export type ExpectedCall = z.infer<typeof expectedCallSchema>;

/** A forbidden call: a tool name (any arguments), or a tool with matchers (only matching calls count). */
const forbiddenCallSchema = z.union([z.string().min(1), expectedCallSchema]);
export type ForbiddenCall = z.infer<typeof forbiddenCallSchema>;

/** One reply of the scripted model: tool calls, a plain answer, or raw assistant text (text-written calls). */
export const scriptStepSchema = z.union([
  z.strictObject({
    calls: z
      .array(
        z.strictObject({
          tool: z.string().min(1),
          /** An object is sent JSON-encoded; a string is sent as written (malformed JSON on purpose). */
          args: z.union([z.record(z.string(), z.unknown()), z.string()]).optional(),
        }),
      )
      .min(1),
  }),
  z.strictObject({ answer: z.string() }),
  z.strictObject({ content: z.string().min(1) }),
]);
export type ScriptStep = z.infer<typeof scriptStepSchema>;

export const scenarioSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string().optional(),
  /** The requester's permission level (their stored level in `users`). */
  requester: z.enum(LEVELS).default("user"),
  /** The channel the request is made in (the demo workspace's #ops by default). */
  channel: z
    .string()
    .regex(/^[CDG][A-Z0-9]+$/, "must be a Slack channel id like C0OPS")
    .optional(),
  /** One message is one turn; more are later turns in the same thread. */
  messages: z.array(z.string().min(1)).min(1),
  /** The tools the run may see and call (default: every built-in the requester's level allows). */
  tools: z.array(z.string().min(1)).min(1).optional(),
  /** Approve every call the run pauses for, and let it continue (default: leave it paused). */
  approve: z.boolean().default(false),
  expect: z
    .strictObject({
      calls: z.array(expectedCallSchema).default([]),
      forbidden: z.array(forbiddenCallSchema).default([]),
      /** true: the run must pause for approval; false: it must not. */
      approval: z.boolean().optional(),
      /** true: policy must deny at least one call; false: it must deny none. */
      denial: z.boolean().optional(),
      answer: z
        .strictObject({
          contains: z.array(z.string().min(1)).default([]),
          not_contains: z.array(z.string().min(1)).default([]),
        })
        .optional(),
      max_steps: z.number().int().min(1).optional(),
    })
    .default({ calls: [], forbidden: [] }),
  /** What a good model answers, step by step, for `--scripted` runs (CI, offline). */
  script: z.array(scriptStepSchema).optional(),
});
export type Scenario = z.infer<typeof scenarioSchema>;
