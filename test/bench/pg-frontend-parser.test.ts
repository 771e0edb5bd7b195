import { describe, expect, it } from "vitest";
import { FrontendParser, normalizeStatement } from "../../bench/lib/pg-frontend-parser.ts";

/**
 * The benchmark counts Postgres statements from the bytes a process sends: every Query and Execute
 * must be counted once, with the text of the statement it ran, however TCP cut the stream.
 */
const int32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const int16 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeInt16BE(n);
  return b;
};
const cstr = (s: string) => Buffer.concat([Buffer.from(s, "utf8"), Buffer.from([0])]);
const untyped = (body: Buffer) => Buffer.concat([int32(body.length + 4), body]);
const typed = (type: string, body: Buffer) =>
  Buffer.concat([Buffer.from(type, "latin1"), int32(body.length + 4), body]);

const startup = untyped(Buffer.concat([int32(196608), cstr("user"), cstr("postgres"), cstr("")]));
const sslRequest = untyped(int32(80877103));
const query = (text: string) => typed("Q", cstr(text));
const parse = (name: string, text: string) => typed("P", Buffer.concat([cstr(name), cstr(text), int16(0)]));
const bind = (portal: string, statement: string, values: string[] = []) =>
  typed(
    "B",
    Buffer.concat([
      cstr(portal),
      cstr(statement),
      int16(0),
      int16(values.length),
      ...values.flatMap((v) => [int32(Buffer.byteLength(v)), Buffer.from(v)]),
      int16(0),
    ]),
  );
const describeMsg = (portal: string) => typed("D", Buffer.concat([Buffer.from("P"), cstr(portal)]));
const execute = (portal: string) => typed("E", Buffer.concat([cstr(portal), int32(0)]));
const sync = () => typed("S", Buffer.alloc(0));
const close = (kind: "S" | "P", name: string) => typed("C", Buffer.concat([Buffer.from(kind), cstr(name)]));
const password = () => typed("p", cstr("secret"));

function collect() {
  const seen: Array<[string, string]> = [];
  const parser = new FrontendParser((text, kind) => seen.push([kind, text]));
  return { parser, seen };
}

/** A session as node-postgres sends it: startup, a simple query, a named and an unnamed statement. */
const session = Buffer.concat([
  startup,
  password(),
  query("BEGIN"),
  parse("s1", "select * from runs where id = $1"),
  bind("", "s1", ["r_1"]),
  describeMsg(""),
  execute(""),
  sync(),
  // The named statement again: pg sends no Parse the second time.
  bind("", "s1", ["r_2"]),
  execute(""),
  sync(),
  parse("", "insert into tickets (title) values ($1)"),
  bind("", "", ["héllo; \u0000-free"]),
  execute(""),
  sync(),
  query("COMMIT"),
]);
const expected: Array<[string, string]> = [
  ["simple", "BEGIN"],
  ["extended", "select * from runs where id = $1"],
  ["extended", "select * from runs where id = $1"],
  ["extended", "insert into tickets (title) values ($1)"],
  ["simple", "COMMIT"],
];

describe("FrontendParser", () => {
  it("counts each Query and Execute once, with its statement's text", () => {
    const { parser, seen } = collect();
    parser.push(session);
    expect(seen).toEqual(expected);
  });

  it("reads the same statements whatever the stream was cut into", () => {
    for (let cut = 1; cut < session.length; cut++) {
      const { parser, seen } = collect();
      parser.push(session.subarray(0, cut));
      parser.push(session.subarray(cut));
      expect(seen, `cut at ${cut}`).toEqual(expected);
    }
    const { parser, seen } = collect();
    for (let i = 0; i < session.length; i++) parser.push(session.subarray(i, i + 1));
    expect(seen).toEqual(expected);
  });

  it("reads the startup after an SSL request the server declined", () => {
    const { parser, seen } = collect();
    parser.push(sslRequest);
    parser.pushFromServer(Buffer.from("N"));
    parser.push(Buffer.concat([startup, query("select 1")]));
    expect(seen).toEqual([["simple", "select 1"]]);
    expect(parser.opaque).toBe(false);
  });

  it("stops reading a connection that turns to TLS", () => {
    const { parser, seen } = collect();
    parser.push(sslRequest);
    parser.pushFromServer(Buffer.from("S"));
    parser.push(query("select 1"));
    expect(seen).toEqual([]);
    expect(parser.opaque).toBe(true);
  });

  it("forgets a closed statement and names what it cannot resolve", () => {
    const { parser, seen } = collect();
    parser.push(
      Buffer.concat([startup, parse("s1", "select 1"), close("S", "s1"), bind("", "s1"), execute("")]),
    );
    expect(seen).toEqual([["extended", '(unknown statement "s1")']]);
  });

  it("gives up on a length no message can have instead of reading garbage", () => {
    const { parser, seen } = collect();
    parser.push(Buffer.concat([startup, Buffer.from("Q"), int32(2), query("select 1")]));
    expect(seen).toEqual([]);
    expect(parser.opaque).toBe(true);
  });
});

describe("normalizeStatement", () => {
  it("collapses whitespace and cuts long statements", () => {
    expect(normalizeStatement("select\n   1\tfrom  x ")).toBe("select 1 from x");
    const long = normalizeStatement(`select ${"a, ".repeat(200)}b`);
    expect(long.length).toBe(160);
    expect(long.endsWith("…")).toBe(true);
  });
});
