import type { ModelPrices } from "../core/model-prices.ts";
import type { EvalEnvironment } from "./eval-environment.ts";
import type { LoadedScenario } from "./load-scenarios.ts";
import { ScenarioFileError } from "./load-scenarios.ts";
import { type EvalTarget, runScenario } from "./play-scenario.ts";
import { scoreRun } from "./score-run.ts";
import { runCost, type ScenarioResult, type Totals, totalsOf } from "./summarize.ts";

export interface TargetResult {
  label: string;
  model: string;
  baseURL?: string;
  systemPrompt?: string;
  scenarios: ScenarioResult[];
  totals: Totals;
}

/** Tool names a scenario uses that this registry does not have: a typo would otherwise just fail. */
function unknownTools(scenario: LoadedScenario, names: Set<string>): string[] {
  const used = [
    ...(scenario.tools ?? []).map((t, i) => [`tools[${i}]`, t] as const),
    ...scenario.expect.calls.map((c, i) => [`expect.calls[${i}].tool`, c.tool] as const),
    ...scenario.expect.forbidden.map(
      (f, i) => [`expect.forbidden[${i}]`, typeof f === "string" ? f : f.tool] as const,
    ),
  ];
  return used
    .filter(([, t]) => !names.has(t))
    .map(
      ([field, t]) =>
        `${scenario.file}: ${field}: "${t}" is not a tool (known: ${[...names].sort().join(", ")})`,
    );
}

/** Runs every scenario `repeat` times against one configuration and scores each run. */
export async function runEval(options: {
  env: EvalEnvironment;
  target: EvalTarget & { modelName: string; baseURL?: string; systemPromptFile?: string };
  scenarios: readonly LoadedScenario[];
  repeat: number;
  /** USD per million tokens by model (HERMES_MODEL_PRICES, overridden by `--prices FILE`). */
  prices?: ModelPrices;
  onRun?: (scenario: string, passed: boolean) => void;
}): Promise<TargetResult> {
  const { env, target } = options;
  const tools = await env.toolsFor(target.model);
  const names = new Set(tools.registry.names());
  const problems = options.scenarios.flatMap((s) => unknownTools(s, names));
  if (problems.length) throw new ScenarioFileError(problems);
  const scenarios: ScenarioResult[] = [];
  for (const scenario of options.scenarios) {
    const result: ScenarioResult = { name: scenario.name, file: scenario.file, runs: [] };
    for (let i = 0; i < options.repeat; i++) {
      const record = await runScenario(env, target, tools, scenario);
      const score = scoreRun(scenario, record);
      const costUsd = runCost(record, options.prices ?? {});
      result.runs.push({ record, score, ...(costUsd !== undefined ? { costUsd } : {}) });
      options.onRun?.(scenario.name, score.passed);
    }
    scenarios.push(result);
  }
  return {
    label: target.label,
    model: target.modelName,
    ...(target.baseURL ? { baseURL: target.baseURL } : {}),
    ...(target.systemPromptFile ? { systemPrompt: target.systemPromptFile } : {}),
    scenarios,
    totals: totalsOf(scenarios.flatMap((s) => s.runs)),
  };
}
