/**
 * `node bench/files-read.ts`: what reading an attached file costs. A worker thread's start with type
 * stripping (a .ts entry) beside a plain .mjs one; a PDF, DOCX and XLSX read cold (worker start and
 * library load included) and warm (a pooled worker); an image downscale; and the longest the event loop
 * waited meanwhile. Run it on an otherwise idle machine; it prints the figures, it asserts nothing.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import sharp from "sharp";
import { closeParseWorkers } from "../src/files/parse-off-thread.ts";
import { readFile } from "../src/files/read-file.ts";

const RUNS = 10;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

/** Milliseconds from `new Worker` to the worker's first message. */
async function workerStart(file: string): Promise<number> {
  return timed(async () => {
    const worker = new Worker(file);
    await new Promise((resolve) => worker.once("message", resolve));
    await worker.terminate();
  });
}

let longestGap = 0;
let last = performance.now();
const watch = setInterval(() => {
  const now = performance.now();
  longestGap = Math.max(longestGap, now - last);
  last = now;
}, 5);

const dir = mkdtempSync(join(tmpdir(), "hermes-bench-files-"));
try {
  const body = `import { parentPort } from "node:worker_threads";\nconst ready: string = "ready";\nparentPort?.postMessage(ready);\n`;
  writeFileSync(join(dir, "ready.ts"), body);
  writeFileSync(join(dir, "ready.mjs"), body.replace(": string", ""));
  for (const entry of ["ready.ts", "ready.mjs"]) {
    const runs: number[] = [];
    for (let run = 0; run < RUNS; run++) runs.push(await workerStart(join(dir, entry)));
    console.log(`worker start (${entry}): median ${median(runs).toFixed(1)} ms`);
  }

  const fixtures = new URL("../test/fixtures/files/", import.meta.url);
  const demo = new URL("../src/files/demo/", import.meta.url);
  const documents: [string, Buffer][] = [
    ["sample-report.pdf", readFileSync(new URL("sample-report.pdf", demo))],
    ["sample.docx", readFileSync(new URL("sample.docx", fixtures))],
    ["sample.xlsx", readFileSync(new URL("sample.xlsx", fixtures))],
    ["sample-tickets.csv", readFileSync(new URL("sample-tickets.csv", demo))],
  ];
  for (const [name, bytes] of documents) {
    await closeParseWorkers();
    const cold = await timed(() => readFile(bytes, { name }));
    const warm: number[] = [];
    for (let run = 0; run < RUNS; run++) warm.push(await timed(() => readFile(bytes, { name })));
    console.log(`${name}: cold ${cold.toFixed(0)} ms, warm median ${median(warm).toFixed(1)} ms`);
  }

  const photo = await sharp({
    create: {
      width: 4000,
      height: 3000,
      channels: 3,
      background: "#808080",
      noise: { type: "gaussian", mean: 128, sigma: 40 },
    },
  })
    .jpeg({ quality: 85 })
    .toBuffer();
  const screenshot = await sharp(readFileSync(new URL("sample-screenshot.png", demo)))
    .resize(2880, 1680)
    .png()
    .toBuffer();
  for (const [name, bytes] of [
    ["photo.jpg (4000×3000)", photo],
    ["screenshot.png (2880×1680)", screenshot],
  ] as const) {
    await timed(() => readFile(bytes, { name }));
    const runs: number[] = [];
    for (let run = 0; run < 5; run++) runs.push(await timed(() => readFile(bytes, { name })));
    console.log(
      `${name} → 2048 px: median ${median(runs).toFixed(0)} ms (${(bytes.length / 1024).toFixed(0)} KB in)`,
    );
  }
  console.log(`longest event-loop wait during all of it: ${longestGap.toFixed(0)} ms`);
} finally {
  clearInterval(watch);
  await closeParseWorkers();
  rmSync(dir, { recursive: true, force: true });
}
