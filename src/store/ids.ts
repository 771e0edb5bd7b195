import { randomBytes } from "node:crypto";

/**
 * A random, unguessable id: `prefix_` + 128 random bits in base64url (22 characters). Used where an id
 * travels through Slack (approval button values) or must not be enumerable (results, runs).
 */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(16).toString("base64url")}`;
}
