/** The tool-call parser names a model family goes by in vLLM and in SGLang (which lacks a few). */
export interface ParserNames {
  /** The call syntax the parser reads: a name and a format that agree on it, the name says which variant. */
  syntax: string;
  vllm: string;
  sglang?: string;
}

const P = {
  gptOss: { syntax: "harmony", vllm: "openai", sglang: "gpt-oss" },
  qwen3Coder: { syntax: "qwen-xml", vllm: "qwen3_coder", sglang: "qwen3_coder" },
  hermes: { syntax: "tool_call-json", vllm: "hermes", sglang: "qwen25" },
  mistral: { syntax: "mistral", vllm: "mistral", sglang: "mistral" },
  llama4: { syntax: "pythonic", vllm: "llama4_pythonic", sglang: "pythonic" },
  llama3: { syntax: "llama-json", vllm: "llama3_json", sglang: "llama3" },
  pythonic: { syntax: "pythonic", vllm: "pythonic", sglang: "pythonic" },
  deepseekV32: { syntax: "deepseek-dsml", vllm: "deepseek_v32", sglang: "deepseekv32" },
  deepseekV31: { syntax: "deepseek", vllm: "deepseek_v31", sglang: "deepseekv31" },
  deepseekV3: { syntax: "deepseek", vllm: "deepseek_v3", sglang: "deepseekv3" },
  kimi: { syntax: "kimi", vllm: "kimi_k2", sglang: "kimi_k2" },
  glm: { syntax: "glm", vllm: "glm45", sglang: "glm45" },
  minimaxM2: { syntax: "minimax-xml", vllm: "minimax_m2", sglang: "minimax-m2" },
  minimax: { syntax: "minimax-json", vllm: "minimax" },
  granite: { syntax: "granite", vllm: "granite" },
  internlm: { syntax: "internlm", vllm: "internlm" },
  phi4: { syntax: "phi4", vllm: "phi4_mini_json" },
  xlam: { syntax: "xlam", vllm: "xlam" },
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

const find = (table: Array<[string[], ParserNames]>, text: string | undefined) =>
  text ? table.find(([keys]) => keys.some((k) => text.includes(k)))?.[1] : undefined;

/**
 * Which server-side tool-call parser fits. The syntax the model was seen writing wins (it is what the
 * parser must read), unless the model's name names a parser for that same syntax more precisely
 * (DeepSeek-V3.1 writes DeepSeek tokens but needs `deepseek_v31`; Llama 4's pythonic calls,
 * `llama4_pythonic`). Undefined when neither says.
 */
export function parserFor(model: string, textFormat?: string): ParserNames | undefined {
  const byFormat = find(BY_FORMAT, textFormat?.toLowerCase());
  const byName = find(BY_NAME, model.toLowerCase());
  if (byFormat && byName && byFormat.syntax === byName.syntax) return byName;
  return byFormat ?? byName;
}
