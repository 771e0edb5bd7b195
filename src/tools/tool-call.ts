/** A tool call as the model wrote it; the registry repairs and validates its arguments. */
export interface ToolCall {
  id: string;
  name: string;
  /** The raw argument text as the model wrote it (repaired later, by the registry). */
  arguments: string;
}
