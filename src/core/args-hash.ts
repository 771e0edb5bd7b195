import { canonicalJson, sha256Hex } from "./canonical-json.ts";

/** Stored `args_sha256` values that are keyed carry this prefix; a bare hex digest is a legacy hash. */
export const ARGS_MAC_PREFIX = "hmac-sha256:";

/**
 * The plain hash of a call: tool name + canonical arguments. It lives in memory only (the runtime
 * records it with each call); what is stored is its keyed form (`AuditLog.argsMac`), because a plain
 * hash of a small value (a phone number, an id) can be brute-forced by whoever reads the table.
 */
export const argsSha256 = (tool: string, args: unknown) => sha256Hex(`${tool}\n${canonicalJson(args)}`);

/** Whether a stored binding is keyed; a bare hex digest is a plain hash, which nothing trusts. */
export const isKeyedBinding = (stored: string) => stored.startsWith(ARGS_MAC_PREFIX);
