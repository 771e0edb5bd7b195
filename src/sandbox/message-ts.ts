/** A clock of Slack message timestamps; `advancePast` makes it continue after ts handed out before. */
export interface TsClock {
  (): string;
  /** The clock's next ts is later than `ts` (a restored workspace continues after its newest message). */
  advancePast(ts: string): void;
  /** The last ts handed out (or advanced past); "0.000000" before any. */
  last(): string;
}

/**
 * Slack message timestamps ("1764420000.000100"): seconds, a dot, six digits. They identify a message in
 * a channel, so the clock never hands out the same one twice and never goes backwards.
 */
export function createTsClock(now: () => number = Date.now): TsClock {
  let lastMicros = 0;
  const clock = () => {
    const micros = Math.max(Math.floor(now()) * 1000, lastMicros + 1);
    lastMicros = micros;
    return formatTs(micros);
  };
  clock.advancePast = (ts: string) => {
    lastMicros = Math.max(lastMicros, tsMicros(ts));
  };
  clock.last = () => formatTs(lastMicros);
  return clock;
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

/** A ts as microseconds since the epoch (0 for something that is not a ts). */
function tsMicros(ts: string): number {
  const m = /^(\d{1,12})(?:\.(\d{1,6}))?$/.exec(ts);
  return m ? Number(m[1]) * 1_000_000 + Number((m[2] ?? "").padEnd(6, "0")) : 0;
}

function formatTs(micros: number): string {
  return `${Math.floor(micros / 1_000_000)}.${String(micros % 1_000_000).padStart(6, "0")}`;
}
