import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  name: string;
  ms: number;
}

export interface ProfileSummary {
  /** Sampled ms in the window, idle excluded. */
  busyMs: number;
  idleMs: number;
  byFunction: SelfTime[];
  byFile: SelfTime[];
  byPackage: SelfTime[];
  /**
   * Each sample charged to the nearest frame on its stack that is the project's (src/…) or a
   * dependency's (node_modules/…): node internals, GC-free natives (socket writes) and microtasks
   * land on whoever called them.
   */
  byCaller: SelfTime[];
}

/**
 * Sums a `.cpuprofile`'s self time per function, per file and per package (node_modules/<pkg>, the
 * project's own src/ folders, node: internals, GC and native), optionally only for samples taken
 * between `fromUs` and `toUs` (V8's monotonic clock, as `process.hrtime` in any process).
 */
export function summarizeCpuProfile(path: string, window?: { fromUs: number; toUs: number }): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const callerOf = (id: number): string | undefined => {
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur)?.callFrame;
      if (frame && (frame.url.includes("node_modules/") || frame.url.includes("/src/")))
        return `${packageOf(frame.url, "")} ${frame.functionName || "(anonymous)"}`;
    }
    return undefined;
  };
  const caller = new Map<string, number>();
  const fn = new Map<string, number>();
  const file = new Map<string, number>();
  const pkg = new Map<string, number>();
  let busy = 0;
  let idle = 0;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    t += delta;
    if (window && (t < window.fromUs || t > window.toUs)) continue;
    const node = byId.get(profile.samples[i]!);
    if (!node) continue;
    const ms = delta / 1000;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === "(idle)") {
      idle += ms;
      continue;
    }
    busy += ms;
    const where = shortUrl(url);
    add(fn, `${functionName || "(anonymous)"} ${where}${where ? `:${lineNumber + 1}` : ""}`, ms);
    add(file, where || functionName, ms);
    add(pkg, packageOf(url, functionName), ms);
    add(caller, callerOf(node.id) ?? functionName, ms);
  }
  const sorted = (m: Map<string, number>) =>
    [...m.entries()].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms);
  return {
    busyMs: busy,
    idleMs: idle,
    byFunction: sorted(fn),
    byFile: sorted(file),
    byPackage: sorted(pkg),
    byCaller: sorted(caller),
  };
}

function add(map: Map<string, number>, key: string, ms: number) {
  map.set(key, (map.get(key) ?? 0) + ms);
}

function shortUrl(url: string): string {
  const nm = url.lastIndexOf("node_modules/");
  if (nm >= 0) return url.slice(nm + "node_modules/".length);
  const src = url.indexOf("/src/");
  if (src >= 0) return url.slice(src + 1);
  return url.replace(/^file:\/\//, "");
}

function packageOf(url: string, functionName: string): string {
  const nm = url.lastIndexOf("node_modules/");
  if (nm >= 0) {
    const rest = url.slice(nm + "node_modules/".length).split("/");
    return rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const src = /\/src\/([^/]+)/.exec(url);
  if (src) return `src/${src[1]!.replace(/\.ts$/, ".ts")}`;
  if (url.startsWith("node:")) return url.split("/")[0]!;
  if (!url) return functionName; // (garbage collector), (program), native functions
  return url;
}

/** The top `n` rows of a summary as aligned text lines. */
export function formatSelfTimes(rows: SelfTime[], n: number, perTurn?: number): string[] {
  return rows.slice(0, n).map((r) => {
    const each = perTurn ? `${(r.ms / perTurn).toFixed(3).padStart(8)} ms/turn` : "";
    return `${r.ms.toFixed(1).padStart(9)} ms ${each}  ${r.name}`;
  });
}
