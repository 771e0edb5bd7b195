/**
 * OpenAI's own reasoning models (o1, o3, o4-mini, the gpt-5 family except its `-chat` variants)
 * refuse `max_tokens` and any `temperature` but the default: they take `max_completion_tokens`.
 * Every other OpenAI-compatible server (vLLM, Ollama, llama.cpp, LM Studio, SGLang) keeps the classic
 * pair. A provider prefix (`openai/o3`, as routers write it) is ignored.
 */
const OPENAI_REASONING_MODEL = /^(?:o\d+(?:-|$)|gpt-5(?![\w.-]*-chat))/i;

export function isOpenAIReasoningModel(model: string): boolean {
  const name = model.slice(model.lastIndexOf("/") + 1);
  return OPENAI_REASONING_MODEL.test(name);
}

export type SamplingParams =
  | { max_completion_tokens: number | undefined }
  | { temperature: number | undefined; max_tokens: number | undefined };

/** The output cap and temperature as `model` accepts them. */
export function samplingParams(
  model: string,
  temperature: number | undefined,
  maxTokens: number | undefined,
): SamplingParams {
  if (isOpenAIReasoningModel(model)) return { max_completion_tokens: maxTokens };
  return { temperature, max_tokens: maxTokens };
}
