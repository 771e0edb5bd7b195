/**
 * `npm run bench:runtime [-- --turns 300]`: runtime overhead per turn (bench/runtime-overhead.ts) vs
 * a bare `openai` SDK loop and vs `@openai/agents`, then what recovering text tool calls costs per
 * message for each model family (bench/text-formats.ts).
 */
import { CONTENDERS, measureRuntimeOverhead } from "./runtime-overhead.ts";
import { printTextFormats } from "./text-formats.ts";

const turnsArg = process.argv.indexOf("--turns");
const TURNS = turnsArg > 0 ? Number(process.argv[turnsArg + 1]) : 300;

const r = await measureRuntimeOverhead({ turns: TURNS, warmup: 50 });
console.log(
  `runtime benchmark: ${r.turns} turns each (one tool round trip = 2 model requests over local HTTP), node ${process.version}, @openai/agents ${r.openaiAgentsVersion}`,
);
for (const name of CONTENDERS) {
  const s = r.perTurnMs[name];
  const gc = r.gcPerTurnMs[name];
  console.log(
    `${name.padEnd(16)} mean ${(s.mean + gc).toFixed(2)} ms/turn (${s.mean.toFixed(2)} + ${gc.toFixed(2)} collecting its garbage)   p50 ${s.p50.toFixed(2)}   p99 ${s.p99.toFixed(2)}`,
  );
}
console.log(
  `with the trace off: ratio hermes/bare=${r.noTraceVsBare.toFixed(2)} hermes/openai-agents=${r.noTraceVsOpenaiAgents.toFixed(2)}`,
);
console.log(`ratio hermes/bare=${r.vsBare.toFixed(2)} hermes/openai-agents=${r.vsOpenaiAgents.toFixed(2)}`);

printTextFormats();
