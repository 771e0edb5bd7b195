import { MAX_JSON_DEPTH } from "../../../core/json-limits.ts";
import { isRecord } from "./json-calls.ts";
import { isDigit, isNameStart, PythonScalarReader } from "./python-scalars.ts";

/**
 * The value level of the pythonic-call reader: Python literals (True/False/None and JSON's spellings,
 * lists, tuples, sets, dicts, adjacent strings joined) and argument lists, as JSON-compatible data.
 * Nesting is capped at MAX_JSON_DEPTH; `python-literal.ts` builds the calls on top of it.
 */

const NAME_LITERALS: Record<string, unknown> = {
  True: true,
  False: false,
  None: null,
  true: true,
  false: false,
  null: null,
};

/** Reads Python values from `pos`; what cannot be a tool argument is noted in `problem`. */
export class PythonReader extends PythonScalarReader {
  /** The arguments after `(` up to and including `)`: keywords into `args`, the rest noted as problems. */
  arguments(args: Map<string, unknown>, depth: number): void {
    for (;;) {
      this.skip();
      const c = this.peek();
      if (c === -1) this.eof();
      if (c === 41 /* ) */) {
        this.pos++;
        return;
      }
      if (c === 42 /* * */ && this.text.charCodeAt(this.pos + 1) === 42) {
        this.pos += 2;
        const unpacked = this.value(depth + 1);
        if (isRecord(unpacked)) {
          for (const [k, v] of Object.entries(unpacked)) args.set(k, v);
        } else this.note("** needs a dict literal");
      } else {
        const keyword = this.keyword();
        if (keyword !== undefined) args.set(keyword, this.value(depth + 1));
        else {
          const first = args.size === 0;
          const value = this.value(depth + 1);
          this.skip();
          if (first && isRecord(value) && this.peek() === 41 /* ) */) {
            // `f({"k": v})`: one dict that is the whole argument list (JSON-minded models); its keys
            // are the arguments, as with `f(**{…})`.
            for (const [k, v] of Object.entries(value)) args.set(k, v);
          } else this.note("positional arguments are not accepted; name every argument");
        }
      }
      this.skip();
      const sep = this.peek();
      if (sep === -1) this.eof();
      if (sep === 44 /* , */) this.pos++;
      else if (sep !== 41) this.fail("expected , or ) between arguments");
    }
  }

  /** `name =` (not `==`) at the position: the name, with the position after `=`; else undefined. */
  keyword(): string | undefined {
    const save = this.pos;
    const name = this.identifier();
    if (name === undefined) return undefined;
    this.skip();
    if (this.peek() === 61 /* = */ && this.text.charCodeAt(this.pos + 1) !== 61) {
      this.pos++;
      return name;
    }
    if (this.peek() === -1) this.eof();
    this.pos = save;
    return undefined;
  }

  dottedName(): string | undefined {
    let name = this.identifier();
    if (name === undefined) return undefined;
    while (this.peek() === 46 /* . */ && isNameStart(this.text.charCodeAt(this.pos + 1))) {
      this.pos++;
      name += `.${this.identifier()}`;
    }
    if (this.pos >= this.text.length) this.eof();
    return name;
  }

  value(depth: number): unknown {
    if (depth > MAX_JSON_DEPTH) this.fail(`the arguments nest deeper than ${MAX_JSON_DEPTH} levels`);
    this.skip();
    const c = this.peek();
    if (c === -1) this.eof();
    if (c === 39 /* ' */ || c === 34 /* " */) return this.strings("");
    if (c === 91 /* [ */) return this.sequence(93, depth);
    if (c === 40 /* ( */) return this.tuple(depth);
    if (c === 123 /* { */) return this.braces(depth);
    if (c === 45 /* - */ || c === 43 /* + */) {
      this.pos++;
      this.skip();
      const inner = this.value(depth + 1);
      if (typeof inner !== "number") {
        this.note("a sign applies to numbers only");
        return null;
      }
      return c === 45 ? -inner : inner;
    }
    if (isDigit(c) || (c === 46 && isDigit(this.text.charCodeAt(this.pos + 1)))) return this.number();
    if (isNameStart(c)) return this.named(depth);
    this.fail("expected a literal value");
  }

  /** A name in value position: True/False/None (and JSON's spellings), a string prefix, or a call. */
  named(depth: number): unknown {
    const start = this.pos;
    const name = this.identifier()!;
    const q = this.peek();
    if ((q === 39 || q === 34) && name.length <= 2 && /^[rRbBuUfF]{1,2}$/.test(name)) {
      return this.strings(name.toLowerCase());
    }
    if (q === -1) this.eof();
    if (Object.hasOwn(NAME_LITERALS, name)) return NAME_LITERALS[name];
    this.pos = start;
    this.dottedName();
    this.skip();
    if (this.peek() === 40 /* ( */) {
      this.pos++;
      this.arguments(new Map(), depth + 1);
      this.note("arguments must be literals, not calls");
      return null;
    }
    this.note(
      `arguments must be literals; ${this.text.slice(start, Math.min(this.pos, start + 40))} is a name`,
    );
    return null;
  }

  /** One string literal and any literals written right after it (Python joins adjacent literals). */
  strings(prefix: string): string {
    let out = this.stringLiteral(prefix);
    for (;;) {
      const save = this.pos;
      this.skip();
      const c = this.peek();
      if (c === 39 || c === 34) {
        out += this.stringLiteral("");
        continue;
      }
      if (isNameStart(c)) {
        const word = this.identifier()!;
        const q = this.peek();
        if ((q === 39 || q === 34) && /^[rRbBuUfF]{1,2}$/.test(word)) {
          out += this.stringLiteral(word.toLowerCase());
          continue;
        }
      }
      this.pos = save;
      return out;
    }
  }

  /** `[…]` (and the body of sets): elements separated by commas, a trailing comma allowed. */
  sequence(close: number, depth: number): unknown[] {
    this.pos++;
    const items: unknown[] = [];
    for (;;) {
      this.skip();
      const c = this.peek();
      if (c === -1) this.eof();
      if (c === close) {
        this.pos++;
        return items;
      }
      items.push(this.value(depth + 1));
      this.skip();
      const sep = this.peek();
      if (sep === -1) this.eof();
      if (sep === 44) this.pos++;
      else if (sep !== close) this.fail("expected , between items");
    }
  }

  /** `(a, b)` is a tuple (read as a list), `(a)` only parentheses around a value, `()` empty. */
  tuple(depth: number): unknown {
    this.pos++;
    this.skip();
    if (this.peek() === 41) {
      this.pos++;
      return [];
    }
    const first = this.value(depth + 1);
    this.skip();
    if (this.peek() === -1) this.eof();
    if (this.peek() === 41) {
      this.pos++;
      return first;
    }
    if (this.peek() !== 44) this.fail("expected , or ) in a tuple");
    // On the comma after the first item: `sequence` steps over it and reads the rest.
    return [first, ...this.sequence(41, depth)];
  }

  /** `{}` and `{k: v, …}` are dicts, `{a, b}` a set (read as a list, as SGLang does). */
  braces(depth: number): unknown {
    this.pos++;
    this.skip();
    if (this.peek() === -1) this.eof();
    if (this.peek() === 125) {
      this.pos++;
      return {};
    }
    const first = this.value(depth + 1);
    this.skip();
    const after = this.peek();
    if (after === -1) this.eof();
    if (after === 125) {
      this.pos++;
      return [first];
    }
    if (after === 44) return [first, ...this.sequence(125, depth)];
    if (after !== 58 /* : */) this.fail("expected : or , in braces");
    const entries = new Map<string, unknown>();
    let key: unknown = first;
    for (;;) {
      this.expect(58, ":");
      entries.set(jsonKey(key, this), this.value(depth + 1));
      this.skip();
      const sep = this.peek();
      if (sep === -1) this.eof();
      if (sep !== 44 && sep !== 125) this.fail("expected , or } in a dict");
      if (sep === 44) {
        this.pos++;
        this.skip();
      }
      if (this.peek() === 125) {
        this.pos++;
        return Object.fromEntries(entries);
      }
      key = this.value(depth + 1);
    }
  }
}

/** A dict key as JSON writes it (json.dumps turns None/True/numbers into strings). */
function jsonKey(key: unknown, reader: PythonReader): string {
  if (typeof key === "string") return key;
  if (key === null) return "null";
  if (typeof key === "number" || typeof key === "boolean") return String(key);
  reader.note("dict keys must be strings, numbers, booleans or None");
  return "";
}
