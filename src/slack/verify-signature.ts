import { createHmac, timingSafeEqual } from "node:crypto";

/** Slack's window: a request signed more than 5 minutes from now (either way) is refused. */
export const SIGNATURE_WINDOW_SECONDS = 5 * 60;

export type SignatureCheck = { ok: true; timestamp: number } | { ok: false; reason: string };

/**
 * Is this body signed with our signing secret, at a time within ±5 minutes of now? Bolt's own check
 * refuses old timestamps only; a timestamp from the future would let a captured request be replayed
 * long after it was signed, so both directions are refused here.
 */
export function verifySlackSignature({
  signingSecret,
  body,
  signature,
  timestamp,
  nowMs = Date.now(),
}: {
  signingSecret: string;
  body: Buffer;
  signature: string | undefined;
  timestamp: string | undefined;
  nowMs?: number;
}): SignatureCheck {
  if (!signature || !timestamp) return { ok: false, reason: "signature headers missing" };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: "timestamp is not Unix seconds" };
  const ts = Number(timestamp);
  const skew = ts - Math.floor(nowMs / 1000);
  if (skew < -SIGNATURE_WINDOW_SECONDS) return { ok: false, reason: "timestamp too old" };
  if (skew > SIGNATURE_WINDOW_SECONDS) return { ok: false, reason: "timestamp in the future" };
  const [version, hash] = signature.split("=", 2);
  if (version !== "v0" || !hash || !/^[0-9a-f]{64}$/.test(hash))
    return { ok: false, reason: "malformed signature" };
  const expected = createHmac("sha256", signingSecret).update(`v0:${timestamp}:`).update(body).digest();
  if (!timingSafeEqual(expected, Buffer.from(hash, "hex")))
    return { ok: false, reason: "signature mismatch" };
  return { ok: true, timestamp: ts };
}
