/**
 * Slack message timestamps ("1764420000.000100"): seconds, a dot, six digits. They identify a message in
 * a channel, so the clock never hands out the same one twice and never goes backwards.
 */
export function createTsClock(now: () => number = Date.now): () => string {
  let lastMicros = 0;
  return () => {
    const micros = Math.max(Math.floor(now()) * 1000, lastMicros + 1);
    lastMicros = micros;
    return `${Math.floor(micros / 1_000_000)}.${String(micros % 1_000_000).padStart(6, "0")}`;
  };
}

/** Orders two Slack timestamps exactly (a float would lose the last digits). */
export function compareTs(a: string, b: string): number {
  const [aSec = "0", aFrac = ""] = a.split(".");
  const [bSec = "0", bFrac = ""] = b.split(".");
  const bySeconds = Number(aSec) - Number(bSec);
  if (bySeconds !== 0) return Math.sign(bySeconds);
  const af = aFrac.padEnd(6, "0");
  const bf = bFrac.padEnd(6, "0");
  return af === bf ? 0 : af < bf ? -1 : 1;
}
