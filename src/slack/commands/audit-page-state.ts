import { z } from "zod";
import { HermesError } from "../../core/errors.ts";
import { type AuditQuery, decodeAuditCursor } from "../../store/audit-query.ts";
import { AUDIT_ACTIONS } from "../../store/schema.ts";
import type { AuditFilters } from "./parse-audit-filters.ts";

/** A page of `/hermes audit`: the filters, the keyset cursor after the previous page, the page number. */
export interface AuditPageState {
  filters: AuditFilters;
  cursor?: string;
  page: number;
}

/** Slack's limit on a button `value`. */
export const BUTTON_VALUE_MAX = 2000;

// Short keys keep the button value small: it travels in every click.
const stateSchema = z
  .object({
    u: z.string().max(40).optional(),
    ch: z.string().max(40).optional(),
    t: z.string().max(100).optional(),
    a: z.array(z.enum(AUDIT_ACTIONS)).max(AUDIT_ACTIONS.length).optional(),
    s: z.iso.datetime().optional(),
    e: z.iso.datetime().optional(),
    c: z.string().max(200).optional(),
    p: z.number().int().min(1).max(100_000),
  })
  .strict();

/** The button value for `state`: compact JSON, at most 2000 characters (filters are short by construction). */
export function encodeAuditState({ filters, cursor, page }: AuditPageState): string {
  const value = JSON.stringify({
    u: filters.user,
    ch: filters.channel,
    t: filters.tool,
    a: filters.action,
    s: filters.since,
    e: filters.until,
    c: cursor,
    p: page,
  });
  if (value.length > BUTTON_VALUE_MAX) {
    throw new HermesError("bad_request", "These audit filters are too long to page through; narrow them.");
  }
  return value;
}

/** The state back from a button value; a tampered or stale value is a `bad_request`. */
export function decodeAuditState(value: string): AuditPageState {
  let raw: unknown;
  try {
    raw = JSON.parse(value);
  } catch {
    raw = undefined;
  }
  const parsed = stateSchema.safeParse(raw);
  if (!parsed.success || (parsed.data.c !== undefined && !isCursor(parsed.data.c))) {
    throw new HermesError("bad_request", "That audit button is out of date; run `/hermes audit` again.");
  }
  const { u, ch, t, a, s, e, c, p } = parsed.data;
  const filters: AuditFilters = {
    ...(u ? { user: u } : {}),
    ...(ch ? { channel: ch } : {}),
    ...(t ? { tool: t } : {}),
    ...(a ? { action: a } : {}),
    ...(s ? { since: s } : {}),
    ...(e ? { until: e } : {}),
  };
  return { filters, ...(c ? { cursor: c } : {}), page: p };
}

/** The store query for `filters`, newest first. */
export function toAuditQuery(filters: AuditFilters, page: { limit: number; cursor?: string }): AuditQuery {
  return {
    limit: page.limit,
    ...(page.cursor ? { cursor: page.cursor } : {}),
    ...(filters.user ? { user: filters.user } : {}),
    ...(filters.channel ? { channel: filters.channel } : {}),
    ...(filters.tool ? { tool: filters.tool } : {}),
    ...(filters.action?.length ? { action: filters.action } : {}),
    ...(filters.since ? { since: filters.since } : {}),
    ...(filters.until ? { until: filters.until } : {}),
  };
}

function isCursor(value: string): boolean {
  try {
    decodeAuditCursor(value);
    return true;
  } catch {
    return false;
  }
}
