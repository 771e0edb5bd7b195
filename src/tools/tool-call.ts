/** A tool call as the model wrote it; the registry repairs and validates its arguments. */
export interface ToolCall {
  id: string;
  name: string;
  /** The raw argument text as the model wrote it (repaired later, by the registry). */
  arguments: string;
  /**
   * Set when the model's argument text was longer than any call may carry (MAX_ARGUMENT_CHARS): its
   * length, with `arguments` holding only a short preview. The call is refused for its size; the
   * megabytes are never kept in history, checkpoints or the audit log.
   */
  oversize?: number;
}
