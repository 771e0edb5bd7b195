/**
 * Argument texts written to hurt a parser: runs that make regexes backtrack and repairers re-scan,
 * nesting that overflows recursive code, and sheer size. Each has a name for test titles.
 */
export function adversarialArguments(): Array<{ name: string; text: string }> {
  const fence = "```";
  return [
    { name: "fence then 4,000 spaces", text: `${fence}json${" ".repeat(4000)}` },
    { name: "fence then 4,000 newlines", text: `${fence}${"\n".repeat(4000)}` },
    { name: "fence, newlines, fence", text: `${fence}json\n${"\n".repeat(20_000)}x${fence}` },
    { name: "many fences", text: `${fence}\n`.repeat(5000) },
    { name: "20,000 [", text: "[".repeat(20_000) },
    { name: "20,000 nested objects", text: `${'{"a":'.repeat(20_000)}1${"}".repeat(20_000)}` },
    { name: "20,000 [ closed", text: `${"[".repeat(20_000)}${"]".repeat(20_000)}` },
    { name: "64 KB of double quotes", text: `{${'"'.repeat(64 * 1024)}` },
    { name: "64 KB of single quotes", text: `{${"'".repeat(64 * 1024)}` },
    { name: "64 KB of broken strings", text: `{"a":"${'b"c'.repeat(20_000)}` },
    { name: "64 KB of comment openers", text: "/*".repeat(32 * 1024) },
    { name: "whitespace only (100 KB)", text: " \n\t".repeat(35_000) },
    { name: "1 MB valid JSON", text: JSON.stringify({ title: "x".repeat(1024 * 1024) }) },
    { name: "1 MB of garbage", text: "{a:".repeat(350_000) },
    { name: "Python literals run", text: `{"a": [${"True, None, ".repeat(20_000)}]}` },
    { name: "unclosed tool_call tags", text: "<tool_call>".repeat(10_000) },
    { name: "double-encoded deep", text: JSON.stringify(`${"[".repeat(5000)}${"]".repeat(5000)}`) },
  ];
}

/**
 * Model content with calls written as text, shaped to make tag extraction backtrack: for every call
 * marker of every format family, a flood of the marker, the marker before a huge unclosed value, and
 * the marker with brackets nested far past any limit; plus bare-JSON and pythonic floods.
 */
export function adversarialContents(markers: readonly string[] = ["<tool_call>"]): Array<{
  name: string;
  text: string;
}> {
  const out = [
    { name: "open tag then 50,000 spaces", text: `<tool_call>${" ".repeat(50_000)}` },
    { name: "10,000 open tags", text: "<tool_call>\n".repeat(10_000) },
    { name: "open tags and partial closes", text: "<tool_call> </tool_cal".repeat(5_000) },
    { name: "bare: 200 KB of [{", text: "[{".repeat(100_000) },
    { name: "bare: 100,000 pythonic calls", text: `[${"f(a=1), ".repeat(100_000)}` },
    { name: "bare: nested call arguments", text: `[f(a=${"[".repeat(20_000)}` },
    {
      name: "bare: 200 KB unclosed string",
      text: `{"name": "create_ticket", "arguments": {"title": "${"x".repeat(200_000)}`,
    },
    { name: "think: 100,000 open tags", text: "<think>".repeat(100_000) },
  ];
  for (const m of markers) {
    out.push(
      { name: `${m}: 10,000 times`, text: `${m}\n`.repeat(10_000) },
      {
        name: `${m}: then 200 KB unclosed JSON`,
        text: `${m}{"name": "x", "arguments": {"a": "${"y".repeat(200_000)}`,
      },
      { name: `${m}: then 20,000 brackets`, text: `${m}${"[{".repeat(20_000)}` },
      { name: `${m}: name then 50,000 '<'`, text: `${m}create_ticket${"<".repeat(50_000)}` },
    );
  }
  return out;
}

/**
 * CPU time (user + system, ms) of this thread, the one that runs the event loop: blind to other
 * processes' load and to V8's own background threads (GC, compilers), which never hold the loop.
 */
export function threadCpuMs(): number {
  const used = process.threadCpuUsage();
  return (used.user + used.system) / 1000;
}

/** CPU time (ms) that `fn` burns on this thread. */
export function cpuMs(fn: () => void): number {
  const start = threadCpuMs();
  fn();
  return threadCpuMs() - start;
}

/**
 * The least CPU time of `tries` runs of `fn`, for work that costs the same each time (no cache
 * between runs). On this nested-virtualization machine a host stall while the thread runs is counted
 * as the thread's CPU time (a 12–15 ms parse once measured 115 ms on CI), so a single sample may hold
 * a pause that is not the work's; a super-linear parse is slow in every run, so the least still shows it.
 */
export function leastCpuMs(fn: () => void, tries = 3): number {
  let least = Number.POSITIVE_INFINITY;
  for (let i = 0; i < tries; i++) least = Math.min(least, cpuMs(fn));
  return least;
}
