/**
 * The client → server side of the Postgres wire protocol, read for the statements it carries
 * (https://www.postgresql.org/docs/current/protocol-message-formats.html): a simple Query ('Q') or an
 * extended Execute ('E') is one statement; its text is the Query's own, or the Parse ('P') of the
 * statement, named or unnamed, that the executed portal was bound to ('B'), per connection.
 */
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
/** Statement text kept per statement: enough to tell them apart in a table. */
const TEXT_CHARS = 160;

/** Called once per statement: its text, and whether a Query or an Execute carried it. */
export type StatementSink = (text: string, kind: "simple" | "extended") => void;

/** Collapses whitespace and cuts a statement's text for counting by text. */
export function normalizeStatement(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > TEXT_CHARS ? `${flat.slice(0, TEXT_CHARS - 1)}…` : flat;
}

/** A NUL-terminated string at `at` in `b`: its text and the offset after its NUL. */
function cString(b: Buffer, at: number): { text: string; next: number } {
  const end = b.indexOf(0, at);
  const stop = end < 0 ? b.length : end;
  return { text: b.toString("utf8", at, stop), next: stop + 1 };
}

/**
 * One connection's client → server bytes, in whatever chunks TCP delivers them. The first messages
 * have no type byte (startup, or an SSL / GSS encryption request before it); every later one is a type
 * byte and a length that counts itself but not the type.
 */
export class FrontendParser {
  private pending: Buffer = Buffer.alloc(0);
  private state: "startup" | "typed" | "opaque" = "startup";
  /** An encryption request was sent: the server's next byte says whether the stream turns to TLS. */
  private awaitingAnswer = false;
  private readonly statements = new Map<string, string>();
  private readonly portals = new Map<string, string>();

  private readonly sink: StatementSink;

  constructor(sink: StatementSink) {
    this.sink = sink;
  }

  /** Bytes from the client. */
  push(chunk: Buffer): void {
    if (this.opaque) return;
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    let at = 0;
    while (!this.opaque) {
      const left = this.pending.length - at;
      if (this.state === "startup") {
        if (left < 4) break;
        const length = this.pending.readInt32BE(at);
        if (length < 4) {
          this.giveUp();
          return;
        }
        if (left < length) break;
        this.startupMessage(length >= 8 ? this.pending.readInt32BE(at + 4) : 0);
        at += length;
      } else {
        if (left < 5) break;
        const length = this.pending.readInt32BE(at + 1);
        if (length < 4) {
          this.giveUp();
          return;
        }
        if (left < 1 + length) break;
        this.typedMessage(
          String.fromCharCode(this.pending[at]!),
          this.pending.subarray(at + 5, at + 1 + length),
        );
        at += 1 + length;
      }
    }
    // Keep only the unread tail (a copy, so the chunk it came from can be freed).
    this.pending = at >= this.pending.length ? Buffer.alloc(0) : Buffer.from(this.pending.subarray(at));
  }

  /** Bytes from the server: only the answer to an encryption request matters here. */
  pushFromServer(chunk: Buffer): void {
    if (!this.awaitingAnswer || chunk.length === 0) return;
    this.awaitingAnswer = false;
    // 'S' (SSL) or 'G' (GSS): the rest is encrypted; 'N': a plain startup message follows.
    if (chunk[0] === 0x53 || chunk[0] === 0x47) this.giveUp();
  }

  /** Whether this connection's statements can no longer be read (TLS, or bytes that make no sense). */
  get opaque(): boolean {
    return this.state === "opaque";
  }

  private giveUp(): void {
    this.state = "opaque";
    this.pending = Buffer.alloc(0);
  }

  private startupMessage(code: number): void {
    if (code === SSL_REQUEST || code === GSSENC_REQUEST) this.awaitingAnswer = true;
    else if (code === CANCEL_REQUEST) this.giveUp();
    else this.state = "typed";
  }

  private typedMessage(type: string, body: Buffer): void {
    switch (type) {
      case "Q":
        this.sink(cString(body, 0).text, "simple");
        return;
      case "P": {
        const name = cString(body, 0);
        this.statements.set(name.text, cString(body, name.next).text);
        return;
      }
      case "B": {
        const portal = cString(body, 0);
        const statement = cString(body, portal.next).text;
        this.portals.set(portal.text, this.statements.get(statement) ?? `(unknown statement "${statement}")`);
        return;
      }
      case "E": {
        const portal = cString(body, 0).text;
        this.sink(this.portals.get(portal) ?? `(unknown portal "${portal}")`, "extended");
        return;
      }
      case "C": {
        // Close: 'S' a statement or 'P' a portal, by name.
        const name = cString(body, 1).text;
        if (body[0] === 0x53) this.statements.delete(name);
        else this.portals.delete(name);
        return;
      }
      default:
    }
  }
}
