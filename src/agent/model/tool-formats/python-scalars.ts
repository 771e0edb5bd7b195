/**
 * The token level of the pythonic-call reader: position, whitespace and comments, names, string
 * literals (' " ''' """, escapes, r/u/b/f prefixes) and numbers (signed by the caller; float,
 * exponent, hex/octal/binary, `_` separators). One forward pass; errors throw `Stop`, caught by the
 * exported functions of `python-literal.ts`, so nothing escapes to their callers.
 */

/** Thrown inside the reader only; `endOfText` separates "cut off" from "not Python". */
export class Stop {
  readonly message: string;
  readonly at: number;
  readonly endOfText: boolean;
  constructor(message: string, at: number, endOfText: boolean) {
    this.message = message;
    this.at = at;
    this.endOfText = endOfText;
  }
}

/** Reads Python tokens from `pos`. */
export class PythonScalarReader {
  pos: number;
  /** Why the call being read cannot be used (its syntax is still read to its end). */
  problem: string | undefined;

  readonly text: string;

  constructor(text: string, start: number) {
    this.text = text;
    this.pos = start;
  }

  peek(): number {
    return this.pos < this.text.length ? this.text.charCodeAt(this.pos) : -1;
  }

  fail(message: string): never {
    throw new Stop(message, this.pos, false);
  }

  eof(): never {
    throw new Stop("the text ended inside the call", this.pos, true);
  }

  /** Skips whitespace, line continuations and `#` comments. */
  skip(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (c === 32 || (c >= 9 && c <= 13)) this.pos++;
      else if (c === 92 /* \ */ && (t.charCodeAt(this.pos + 1) === 10 || t.charCodeAt(this.pos + 1) === 13))
        this.pos += 2;
      else if (c === 35 /* # */) {
        const nl = t.indexOf("\n", this.pos);
        this.pos = nl === -1 ? t.length : nl + 1;
      } else break;
    }
  }

  expect(code: number, what: string): void {
    this.skip();
    const c = this.peek();
    if (c === -1) this.eof();
    if (c !== code) this.fail(`expected ${what}`);
    this.pos++;
  }

  note(problem: string): void {
    this.problem ??= problem;
  }

  identifier(): string | undefined {
    const t = this.text;
    const start = this.pos;
    if (start >= t.length || !isNameStart(t.charCodeAt(start))) return undefined;
    let i = start + 1;
    while (i < t.length && isNamePart(t.charCodeAt(i))) i++;
    this.pos = i;
    return t.slice(start, i);
  }

  stringLiteral(prefix: string): string {
    const raw = prefix.includes("r");
    if (prefix.includes("b")) this.note("bytes literals are not accepted");
    const t = this.text;
    const quote = t.charCodeAt(this.pos);
    const triple = t.charCodeAt(this.pos + 1) === quote && t.charCodeAt(this.pos + 2) === quote;
    this.pos += triple ? 3 : 1;
    let out = "";
    let chunk = this.pos;
    for (;;) {
      if (this.pos >= t.length) this.eof();
      const c = t.charCodeAt(this.pos);
      if (
        c === quote &&
        (!triple || (t.charCodeAt(this.pos + 1) === quote && t.charCodeAt(this.pos + 2) === quote))
      ) {
        out += t.slice(chunk, this.pos);
        this.pos += triple ? 3 : 1;
        break;
      }
      if (c !== 92 /* \ */) {
        this.pos++;
        continue;
      }
      out += t.slice(chunk, this.pos);
      if (this.pos + 1 >= t.length) this.eof();
      if (raw) {
        // A raw string keeps the backslash; it only stops the next character from ending the string.
        out += t.slice(this.pos, this.pos + 2);
        this.pos += 2;
      } else out += this.escape();
      chunk = this.pos;
    }
    if (prefix.includes("f")) return this.fString(out);
    return out;
  }

  /** The character(s) an escape sequence stands for; the position moves past it. */
  escape(): string {
    const t = this.text;
    const e = t[this.pos + 1]!;
    this.pos += 2;
    switch (e) {
      case "\n":
        return "";
      case "\r":
        if (t[this.pos] === "\n") this.pos++;
        return "";
      case "n":
        return "\n";
      case "t":
        return "\t";
      case "r":
        return "\r";
      case "a":
        return "\x07";
      case "b":
        return "\b";
      case "f":
        return "\f";
      case "v":
        return "\v";
      case "x":
        return this.hexEscape(2, "\\x");
      case "u":
        return this.hexEscape(4, "\\u");
      case "U":
        return this.hexEscape(8, "\\U");
      default:
        if (e >= "0" && e <= "7") {
          let digits = e;
          while (digits.length < 3 && t[this.pos]! >= "0" && t[this.pos]! <= "7") digits += t[this.pos++];
          return String.fromCodePoint(Number.parseInt(digits, 8));
        }
        // \\ \' \" map to themselves; an unknown escape keeps its backslash, as in Python.
        return e === "\\" || e === "'" || e === '"' ? e : `\\${e}`;
    }
  }

  hexEscape(length: number, written: string): string {
    const digits = this.text.slice(this.pos, this.pos + length);
    if (digits.length < length && this.pos + digits.length >= this.text.length) this.eof();
    if (!/^[0-9a-fA-F]+$/.test(digits) || digits.length < length) {
      this.note(`a ${written} escape needs ${length} hex digits`);
      return written;
    }
    const code = Number.parseInt(digits, 16);
    this.pos += length;
    if (code > 0x10ffff) {
      this.note(`${written}${digits} is not a character`);
      return "";
    }
    return String.fromCodePoint(code);
  }

  /** An f-string without placeholders is a plain string; `{{`/`}}` are literal braces. */
  fString(body: string): string {
    const plain = body.replaceAll("{{", "").replaceAll("}}", "");
    if (plain.includes("{") || plain.includes("}")) this.note("f-strings with placeholders are not literals");
    return body.replaceAll("{{", "{").replaceAll("}}", "}");
  }

  number(): number {
    const t = this.text;
    const start = this.pos;
    let i = start;
    const c1 = t.charCodeAt(i + 1) | 32;
    let value: number;
    if (t.charCodeAt(i) === 48 && (c1 === 120 || c1 === 111 || c1 === 98) /* 0x 0o 0b */) {
      i += 2;
      while (i < t.length && (isAlnum(t.charCodeAt(i)) || t.charCodeAt(i) === 95)) i++;
      const digits = t.slice(start + 2, i).replaceAll("_", "");
      const radix = c1 === 120 ? 16 : c1 === 111 ? 8 : 2;
      value = Number.parseInt(digits, radix);
      const valid = radix === 16 ? /^[0-9a-fA-F]+$/ : radix === 8 ? /^[0-7]+$/ : /^[01]+$/;
      if (!valid.test(digits)) this.fail("malformed number");
    } else {
      while (i < t.length && (isDigit(t.charCodeAt(i)) || t.charCodeAt(i) === 95)) i++;
      if (t.charCodeAt(i) === 46 /* . */) {
        i++;
        while (i < t.length && (isDigit(t.charCodeAt(i)) || t.charCodeAt(i) === 95)) i++;
      }
      if ((t.charCodeAt(i) | 32) === 101 /* e */) {
        let j = i + 1;
        if (t.charCodeAt(j) === 43 || t.charCodeAt(j) === 45) j++;
        if (isDigit(t.charCodeAt(j))) {
          while (j < t.length && isDigit(t.charCodeAt(j))) j++;
          i = j;
        }
      }
      // Leading zeros (`month=07`) are a Python error models make; SGLang reads them as the number.
      value = Number(t.slice(start, i).replaceAll("_", ""));
    }
    this.pos = i;
    if (i >= t.length) this.eof();
    const next = t.charCodeAt(i);
    if ((next | 32) === 106 /* j */) {
      this.pos++;
      this.note("complex numbers are not accepted");
      return 0;
    }
    if (isNamePart(next)) this.fail("malformed number");
    if (!Number.isFinite(value)) {
      this.note(`${t.slice(start, Math.min(i, start + 40))} is not a finite number`);
      return 0;
    }
    return value;
  }
}

export function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isAlnum(c: number): boolean {
  return isDigit(c) || ((c | 32) >= 97 && (c | 32) <= 122);
}

export function isNameStart(c: number): boolean {
  return (
    ((c | 32) >= 97 && (c | 32) <= 122) || c === 95 || (c > 127 && /\p{L}/u.test(String.fromCharCode(c)))
  );
}

export function isNamePart(c: number): boolean {
  return isNameStart(c) || isDigit(c) || (c > 127 && /\p{N}|\p{Mn}|\p{Mc}/u.test(String.fromCharCode(c)));
}
