import { randomInt } from "node:crypto";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/** A Slack-shaped id (`F` + 10 of `[A-Z0-9]`, ~51 bits) that cannot be guessed from the previous one. */
export function randomSlackId(prefix: string): string {
  let id = prefix;
  for (let i = 0; i < 10; i++) id += ALPHABET[randomInt(ALPHABET.length)];
  return id;
}
