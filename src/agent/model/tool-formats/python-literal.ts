import { Stop } from "./python-scalars.ts";
import { PythonReader } from "./python-values.ts";
import { MAX_TEXT_CALLS } from "./types.ts";

/**
 * A reader of the pythonic calls Llama 3.2/4, LFM2 and Gemma write: `[get_weather(city='SF'), f(x=1)]`,
 * arguments being Python literals (strings in ' " ''' """ with escapes and r/u/b/f prefixes, numbers,
 * True/False/None, lists, tuples, sets, dicts). What vLLM and SGLang do with `ast.parse`, done with one
 * forward pass: linear in the text, nesting capped at MAX_JSON_DEPTH, never a regex over the call.
 * Errors are returned as values; nothing thrown escapes.
 */

/** One call read from the text. */
export interface PythonCall {
  /** As written, dots included (`default_api.get_weather`). */
  name: string;
  arguments: Record<string, unknown>;
  /** False when the text ended inside the call (its closing parenthesis was never written). */
  complete: boolean;
  /**
   * Set when the call is well formed Python but cannot be a tool call: a positional argument (a call
   * takes keyword arguments only, as in vLLM), a value that is not a literal, bytes, a non-finite number.
   */
  rejected?: string;
  start: number;
  end: number;
}

export type PythonCallsParse =
  | {
      ok: true;
      calls: PythonCall[];
      /** Index after the list's `]` (or the single call's `)`); the text's end when it never closed. */
      end: number;
      /** False when the text ended before the list (or call) closed. */
      closed: boolean;
    }
  | { ok: false; error: string; at: number };

export interface PythonCallOptions {
  /** Read `print(f(x=1))` as the call `f(x=1)` (Gemma's tool_code blocks print their calls); one level only. */
  unwrapPrint?: boolean;
}

/**
 * Reads, from `start` (after any whitespace), either a list of calls `[f(a=1), g(b="x")]` or one bare
 * call `f(a=1)`. An empty list reads as no calls. When the text ends inside, no call read is complete
 * (the list, or the statement, was never finished): the calls closed so far and the one cut off are
 * all returned with `complete: false`.
 */
export function parsePythonCallList(
  text: string,
  start = 0,
  options: PythonCallOptions = {},
): PythonCallsParse {
  return guarded(text, start, options, (r) => {
    r.skip();
    return r.peek() === 91 /* [ */ ? r.callList() : r.singleCall();
  });
}

/** Reads one call `name(kw=value, …)` from `start` (after any whitespace). */
export function parsePythonCall(text: string, start = 0, options: PythonCallOptions = {}): PythonCallsParse {
  return guarded(text, start, options, (r) => {
    r.skip();
    return r.singleCall();
  });
}

function guarded(
  text: string,
  start: number,
  options: PythonCallOptions,
  read: (r: CallReader) => { end: number; closed: boolean },
): PythonCallsParse {
  const r = new CallReader(text, start, options);
  try {
    const { end, closed } = read(r);
    return { ok: true, calls: r.calls, end, closed };
  } catch (err) {
    if (!(err instanceof Stop)) throw err;
    if (!err.endOfText) return { ok: false, error: err.message, at: err.at };
    // Cut off: the list (or statement) never closed, so none of its calls is complete; the call being
    // written is kept too, so the reply is known to be a cut-off call and not shown as text.
    const calls = r.calls.map((c) => ({ ...c, complete: false }));
    const open = r.current;
    // Cut inside the name itself: the name so far (it may still name a tool the model meant).
    const name = open && (open.name || text.slice(open.start).trim());
    if (open && name && calls.length < MAX_TEXT_CALLS) {
      calls.push({
        name,
        arguments: Object.fromEntries(open.args),
        complete: false,
        start: open.start,
        end: text.length,
      });
    }
    return { ok: true, calls, end: text.length, closed: false };
  }
}

interface OpenCall {
  name: string;
  args: Map<string, unknown>;
  start: number;
}

/** The pythonic reader that collects calls: a list of them or one. */
class CallReader extends PythonReader {
  readonly calls: PythonCall[] = [];
  /** The call being read, its name "" until read whole (kept when the text ends inside it). */
  current: OpenCall | undefined;
  /** Inside the one `print(` being unwrapped. */
  private inPrint = false;

  readonly options: PythonCallOptions;

  constructor(text: string, start: number, options: PythonCallOptions) {
    super(text, start);
    this.options = options;
  }

  callList(): { end: number; closed: boolean } {
    this.pos++; // [
    for (;;) {
      this.skip();
      const c = this.peek();
      if (c === -1) this.eof();
      if (c === 93 /* ] */) {
        this.pos++;
        return { end: this.pos, closed: true };
      }
      this.call();
      this.skip();
      const sep = this.peek();
      if (sep === -1) this.eof();
      if (sep === 44 /* , */) this.pos++;
      else if (sep !== 93) this.fail("expected , or ] between calls");
    }
  }

  singleCall(): { end: number; closed: boolean } {
    this.call();
    return { end: this.pos, closed: true };
  }

  /** One call at the top of a list or block; pushed to `calls` (a list of more than MAX_TEXT_CALLS fails). */
  call(): void {
    // More calls than any model writes in one message: not a call list, and not worth reading on.
    if (this.calls.length >= MAX_TEXT_CALLS) this.fail(`more than ${MAX_TEXT_CALLS} calls`);
    const start = this.pos;
    if (this.peek() === -1) this.eof();
    const open: OpenCall = { name: "", args: new Map(), start };
    this.current = open;
    const name = this.dottedName();
    if (name === undefined) this.fail("expected a function name");
    open.name = name;
    this.skip();
    if (this.peek() === -1) this.eof();
    if (this.peek() !== 40 /* ( */) this.fail("expected ( after the function name");
    this.pos++;
    if (this.options.unwrapPrint && name === "print" && !this.inPrint) {
      // One `print(` is unwrapped; a `print` inside it is an ordinary call (not a tool), so hostile
      // `print(print(print(…` costs no recursion.
      this.inPrint = true;
      this.current = undefined;
      this.skip();
      this.call();
      this.expect(41, ")");
      this.inPrint = false;
      return;
    }
    this.problem = undefined;
    this.arguments(open.args, 0);
    this.current = undefined;
    const call: PythonCall = {
      name,
      arguments: Object.fromEntries(open.args),
      complete: true,
      start,
      end: this.pos,
    };
    if (this.problem) call.rejected = this.problem;
    this.calls.push(call);
  }
}
