/**
 * `node bench/model-fetch.ts [--calls N] [--rounds R]`: CPU and time per chat completion through the
 * openai SDK with Node's built-in fetch (undici) and with Hermes' fetch (`src/http/http-fetch.ts`,
 * undici request on a shared Agent), against the scripted weather model of benchmark 1 in this process (so both sides of each
 * call are counted, alike for both). Rounds alternate; the first is warm-up.
 */
import OpenAI from "openai";
import { httpFetch } from "../src/http/http-fetch.ts";
import { fmt } from "./lib/stats.ts";
import { startWeatherModel } from "./runtime-overhead.ts";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const CALLS = arg("--calls", 500);
const ROUNDS = arg("--rounds", 5);

const server = await startWeatherModel();
try {
  const client = (fetch?: typeof globalThis.fetch) =>
    new OpenAI({ baseURL: server.baseURL, apiKey: "bench", maxRetries: 0, ...(fetch ? { fetch } : {}) });
  const contenders = {
    "built-in fetch (undici)": client(),
    "model fetch (undici Agent request)": client(httpFetch()),
  };
  const body = {
    model: "bench",
    messages: [{ role: "user" as const, content: "What is the weather in Berlin?" }],
    tools: [
      {
        type: "function" as const,
        function: {
          name: "get_weather",
          parameters: { type: "object", properties: { city: { type: "string" } } },
        },
      },
    ],
  };
  const totals = new Map<string, { cpuUs: number; wallUs: number }>();
  for (let round = 0; round <= ROUNDS; round++) {
    const order = Object.entries(contenders);
    for (const [name, c] of round % 2 ? order.reverse() : order) {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      for (let i = 0; i < CALLS; i++) await c.chat.completions.create(body);
      const cpu = process.cpuUsage(cpu0);
      if (round === 0) continue;
      const t = totals.get(name) ?? { cpuUs: 0, wallUs: 0 };
      t.cpuUs += cpu.user + cpu.system;
      t.wallUs += (performance.now() - t0) * 1000;
      totals.set(name, t);
    }
  }
  for (const [name, t] of totals) {
    const n = CALLS * ROUNDS;
    console.log(`${name}: ${fmt(t.cpuUs / n, 0)} µs CPU, ${fmt(t.wallUs / n, 0)} µs per call (${n} calls)`);
  }
} finally {
  await server.stop();
}
