/** The tool-call parser names a model family goes by in vLLM and in SGLang (which lacks a few). */
export interface ParserNames {
  /** The call syntax the parser reads: a name and a format that agree on it, the name says which variant. */
  syntax: string;
  /** The model family that writes it, as people call it. */
  family: string;
  vllm: string;
  sglang?: string;
}

const P = {
  gptOss: { syntax: "harmony", family: "gpt-oss (harmony)", vllm: "openai", sglang: "gpt-oss" },
  qwen3Coder: { syntax: "qwen-xml", family: "Qwen3-Coder (XML)", vllm: "qwen3_coder", sglang: "qwen3_coder" },
  hermes: {
    syntax: "tool_call-json",
    family: "Hermes / Qwen (<tool_call> JSON)",
    vllm: "hermes",
    sglang: "qwen25",
  },
  mistral: { syntax: "mistral", family: "Mistral", vllm: "mistral", sglang: "mistral" },
  llama4: { syntax: "pythonic", family: "Llama 4 (pythonic)", vllm: "llama4_pythonic", sglang: "pythonic" },
  llama3: { syntax: "llama-json", family: "Llama 3 (JSON)", vllm: "llama3_json", sglang: "llama3" },
  pythonic: {
    syntax: "pythonic",
    family: "pythonic (LFM2, Llama 3.2)",
    vllm: "pythonic",
    sglang: "pythonic",
  },
  deepseekV32: {
    syntax: "deepseek-dsml",
    family: "DeepSeek-V3.2 (DSML)",
    vllm: "deepseek_v32",
    sglang: "deepseekv32",
  },
  deepseekV31: { syntax: "deepseek", family: "DeepSeek-V3.1", vllm: "deepseek_v31", sglang: "deepseekv31" },
  deepseekV3: { syntax: "deepseek", family: "DeepSeek-V3 / R1", vllm: "deepseek_v3", sglang: "deepseekv3" },
  kimi: { syntax: "kimi", family: "Kimi K2", vllm: "kimi_k2", sglang: "kimi_k2" },
  glm: { syntax: "glm", family: "GLM-4.5", vllm: "glm45", sglang: "glm45" },
  minimaxM2: { syntax: "minimax-xml", family: "MiniMax-M2", vllm: "minimax_m2", sglang: "minimax-m2" },
  minimax: { syntax: "minimax-json", family: "MiniMax", vllm: "minimax" },
  granite: { syntax: "granite", family: "Granite", vllm: "granite" },
  internlm: { syntax: "internlm", family: "InternLM", vllm: "internlm" },
  phi4: { syntax: "phi4", family: "Phi-4-mini", vllm: "phi4_mini_json" },
  xlam: { syntax: "xlam", family: "xLAM", vllm: "xlam" },
} satisfies Record<string, ParserNames>;

/** Model names, most specific first: "qwen3-coder" before "qwen", "llama-4" before "llama". */
const BY_NAME: Array<[string[], ParserNames]> = [
  [["gpt-oss"], P.gptOss],
  [["qwen3-coder", "qwen3_coder", "qwen3.5", "qwen3.6"], P.qwen3Coder],
  [["qwen", "qwq", "hermes"], P.hermes],
  [["mistral", "mixtral", "magistral", "devstral", "ministral", "codestral"], P.mistral],
  [["llama-4", "llama4"], P.llama4],
  [["llama"], P.llama3],
  [["deepseek-v3.2", "deepseek-v32"], P.deepseekV32],
  [["deepseek-v3.1", "deepseek-v31"], P.deepseekV31],
  [["deepseek"], P.deepseekV3],
  [["kimi"], P.kimi],
  [["glm"], P.glm],
  [["minimax-m2", "minimax_m2"], P.minimaxM2],
  [["minimax"], P.minimax],
  [["granite"], P.granite],
  [["internlm"], P.internlm],
  [["phi-4", "phi4"], P.phi4],
  [["xlam"], P.xlam],
];

/** Format ids (tool-formats/) → the parser that reads that syntax on the server. */
const BY_FORMAT: Array<[string[], ParserNames]> = [
  [["harmony"], P.gptOss],
  [["qwen3_coder"], P.qwen3Coder],
  [["hermes_json"], P.hermes],
  [["mistral"], P.mistral],
  [["llama3_json"], P.llama3],
  [["pythonic"], P.pythonic],
  [["deepseek_dsml"], P.deepseekV32],
  [["deepseek"], P.deepseekV3],
  [["kimi"], P.kimi],
  [["glm"], P.glm],
  [["minimax"], P.minimaxM2],
  [["granite"], P.granite],
  [["internlm"], P.internlm],
  [["phi4"], P.phi4],
  [["xlam"], P.xlam],
];

/**
 * What a chat template writes when it renders a call, most specific first (Qwen3-Coder's template
 * also holds `<tool_call>`): the family the template is for.
 */
const BY_TEMPLATE: Array<[string[], ParserNames]> = [
  [["<|channel|>", "<|start|>assistant"], P.gptOss],
  [["<function="], P.qwen3Coder],
  [["<minimax:tool_call>"], P.minimaxM2],
  [["<tool_call>"], P.hermes],
  [["[TOOL_CALLS]"], P.mistral],
  [["<|python_start|>"], P.llama4],
  [["<|python_tag|>", "<|eom_id|>"], P.llama3],
  [["｜DSML｜"], P.deepseekV32],
  [["tool▁calls▁begin", "tool▁call▁begin"], P.deepseekV3],
  [["<|tool_calls_section_begin|>"], P.kimi],
  [["<arg_key>"], P.glm],
  [["<|tool_call|>"], P.granite],
  [["<|action_start|>"], P.internlm],
  [["functools["], P.phi4],
  [["<|tool_call_start|>"], P.pythonic],
];

/** The family a chat template is written for, by the call markup it renders, and that marker. */
export function templateParser(template: string): { parsers: ParserNames; marker: string } | undefined {
  for (const [markers, parsers] of BY_TEMPLATE) {
    const marker = markers.find((m) => template.includes(m));
    if (marker) return { parsers, marker };
  }
  return undefined;
}

const find = (table: Array<[string[], ParserNames]>, text: string | undefined) =>
  text ? table.find(([keys]) => keys.some((k) => text.includes(k)))?.[1] : undefined;

/**
 * Which server-side tool-call parser fits. The syntax the model was seen writing wins (it is what the
 * parser must read), unless the model's name names a parser for that same syntax more precisely
 * (DeepSeek-V3.1 writes DeepSeek tokens but needs `deepseek_v31`; Llama 4's pythonic calls,
 * `llama4_pythonic`). Without a format seen, the server's chat template (`template`, when the server
 * shows it) says what the model writes better than its name does. Undefined when none says.
 */
export function parserFor(
  model: string,
  textFormat?: string,
  template?: ParserNames,
): ParserNames | undefined {
  const byFormat = find(BY_FORMAT, textFormat?.toLowerCase()) ?? template;
  const byName = find(BY_NAME, model.toLowerCase());
  if (byFormat && byName && byFormat.syntax === byName.syntax) return byName;
  return byFormat ?? byName;
}
