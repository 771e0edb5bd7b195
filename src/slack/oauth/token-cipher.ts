import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

/** What a sealed text says about its key: `key_id` of the row, for re-sealing with the current key. */
export interface Opened {
  plaintext: string;
  /** Sealed with the previous key: re-seal it with the current one. */
  stale: boolean;
}

export interface TokenCipher {
  /** The id of the current key (a hash prefix: never the key). */
  readonly keyId: string;
  /** AES-256-GCM with a fresh 12-byte IV; `context` (the row's key) is bound as additional data. */
  seal(plaintext: string, context: string): string;
  /** Opens a sealed text with the key it names (current or previous); throws when neither fits or it was altered. */
  open(sealed: string, context: string): Opened;
}

const VERSION = "v1";

/** A key's id: the first 12 hex digits of its SHA-256, so a row says which key sealed it. */
export function keyIdOf(key: Buffer): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 12);
}

/**
 * Seals installation tokens at rest: `v1.<keyId>.<iv>.<tag>.<ciphertext>` (base64url parts). Opening
 * takes the current key or the previous one (`HERMES_INSTALLATION_PREVIOUS_KEY`), so a key can be
 * rotated without downtime: rows sealed with the previous key are re-sealed on read
 * (`pg-installation-store.ts`) or all at once when Hermes starts with a previous key set (`resealAll`).
 */
export function createTokenCipher(keys: { key: Buffer; previousKey?: Buffer | undefined }): TokenCipher {
  if (keys.key.length !== 32) throw new Error("the installation key must be 32 bytes");
  const keyId = keyIdOf(keys.key);
  const byId = new Map<string, Buffer>([[keyId, keys.key]]);
  if (keys.previousKey) byId.set(keyIdOf(keys.previousKey), keys.previousKey);
  return {
    keyId,
    seal(plaintext, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", keys.key, iv);
      cipher.setAAD(Buffer.from(context, "utf8"));
      const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [
        VERSION,
        keyId,
        iv.toString("base64url"),
        tag.toString("base64url"),
        ciphertext.toString("base64url"),
      ].join(".");
    },
    open(sealed, context) {
      const [version, id, iv, tag, ciphertext] = sealed.split(".");
      if (version !== VERSION || !id || !iv || !tag || ciphertext === undefined)
        throw new Error("a stored installation is not in the sealed format");
      const key = byId.get(id);
      if (!key)
        throw new Error(
          `a stored installation was sealed with key ${id}, which is neither HERMES_INSTALLATION_KEY nor HERMES_INSTALLATION_PREVIOUS_KEY`,
        );
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
      decipher.setAAD(Buffer.from(context, "utf8"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      const plaintext = Buffer.concat([
        decipher.update(Buffer.from(ciphertext, "base64url")),
        decipher.final(),
      ]).toString("utf8");
      return { plaintext, stale: id !== keyId };
    },
  };
}
