import OpenAI, { toFile } from "openai";

/**
 * Speech to text through the OpenAI-compatible `/v1/audio/transcriptions` endpoint of the configured
 * model server (`HERMES_TRANSCRIBE_MODEL`: whisper-1, a faster-whisper server, …). The transcript is
 * untrusted text like any file's.
 */
export function createTranscriber(o: {
  baseURL: string | undefined;
  apiKey: string;
  model: string;
  timeoutMs: number;
}): (audio: { data: Buffer; mime: string; name: string }, signal: AbortSignal) => Promise<string> {
  const client = new OpenAI({ baseURL: o.baseURL, apiKey: o.apiKey, timeout: o.timeoutMs, maxRetries: 1 });
  return async (audio, signal) => {
    const file = await toFile(audio.data, audio.name, { type: audio.mime });
    const r = await client.audio.transcriptions.create({ file, model: o.model }, { signal });
    return typeof r === "string" ? r : r.text;
  };
}
