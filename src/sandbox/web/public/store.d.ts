/** Types of store.js for the tests that build the page's workspace from the server's state. */

export function fromServer(state: Record<string, unknown>): Record<string, unknown> & {
  messages: Map<string, unknown>;
  assistantThreads: Map<string, unknown>;
};
