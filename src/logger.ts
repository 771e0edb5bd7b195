import pino, { type DestinationStream, type Logger } from "pino";

export type { Logger } from "pino";

export interface LoggerOptions {
  level?: string;
  /** Where JSON lines go; stdout by default. Tests and the CLI pass a file or a memory stream. */
  destination?: DestinationStream;
  /**
   * Applied to every logged object before it is written (PII / secret redaction). Its result is only
   * serialized, so it may hand back the object itself when nothing in it is sensitive
   * (`Redactor.redactForLog`).
   */
  redact?: (value: unknown) => unknown;
}

const BASE = { app: "hermes" };
const LINE_WRITERS = Symbol("hermes.lineWriters");

/**
 * Writes one line exactly as `logger.child(bindings)[level](fields, msg)` would for a logger made by
 * `createLogger` (same keys and order, same redaction, same destination), in one `JSON.stringify`
 * instead of pino's per-key serialization: the trace writes several lines a turn, and pino's path
 * was most of their cost. Returns false when it cannot (a level that is off, a value JSON cannot
 * write): the caller logs through pino then.
 */
export type LineWriter = (level: "info" | "warn", fields: Record<string, unknown>, msg: string) => boolean;

type LineWriters = (bindings: Record<string, unknown>) => LineWriter;

/**
 * A line writer for `logger` with `bindings` (its own child bindings are included), when `logger`
 * was made by `createLogger`; undefined otherwise. The bindings are redacted once, here.
 */
export function lineWriter(logger: Logger, bindings: Record<string, unknown>): LineWriter | undefined {
  const writers = (logger as unknown as Record<symbol, LineWriters | undefined>)[LINE_WRITERS];
  return writers?.({ ...logger.bindings(), ...bindings });
}

/** One pino logger for the process; children carry `runId`, `sessionKey`, `tool`. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const redact = options.redact;
  const destination = options.destination ?? bufferedDestination(1);
  const logger = pino(
    {
      level: options.level ?? "info",
      base: BASE,
      // A child's bindings (runId, sessionKey, tool) are serialized once, when it is made: redacted then.
      formatters: redact
        ? {
            log: (obj) => redact(obj) as Record<string, unknown>,
            bindings: (bindings) => redact(bindings) as Record<string, unknown>,
          }
        : undefined,
      // The message string does not pass through `formatters.log`: redact it (and its format args) here.
      hooks: redact
        ? {
            logMethod(args, method) {
              // `args` is this call's own array: redacted in place (no copy per line).
              for (let i = 0; i < args.length; i++) {
                const a = args[i];
                if (typeof a === "string") (args as unknown[])[i] = redact(a);
              }
              method.apply(this, args);
            },
          }
        : {},
    },
    destination,
  );
  const clean = (value: unknown) => (redact ? redact(value) : value);
  const writers: LineWriters = (bindings) => {
    // What every line of this writer starts with after its time, serialized (and redacted) once.
    const bound = JSON.stringify({ ...BASE, ...(clean(bindings) as object) }).slice(1, -1);
    return (level, fields, msg) => {
      if (!logger.isLevelEnabled(level)) return false;
      let body: string;
      let text: string | undefined;
      try {
        // pino's order: level, time, base, the child's bindings, the fields, msg (undefined dropped).
        // Pieces are joined as text, as pino does: a field named like a binding is written twice
        // and, read back, the later one wins (as in pino's own lines).
        body = JSON.stringify(clean(fields));
        text = JSON.stringify(clean(msg));
      } catch {
        return false;
      }
      const rest = body.length > 2 ? `,${body.slice(1, -1)}` : "";
      const tail = text === undefined ? "" : `,"msg":${text}`;
      destination.write(
        `{"level":${logger.levels.values[level]},"time":${Date.now()},${bound}${rest}${tail}}\n`,
      );
      return true;
    };
  };
  // Children inherit it (pino makes a child with its parent as prototype).
  Object.defineProperty(logger, LINE_WRITERS, { value: writers });
  return logger;
}

/** A quiet process's last lines reach its log within this long (the buffer is not left to fill). */
export const LOG_FLUSH_MS = 1000;

/** Bytes a log destination gathers before it writes them (fewer, larger writes; see below). */
export const LOG_BUFFER_BYTES = 32 * 1024;

/**
 * Where log lines go: gathered up to LOG_BUFFER_BYTES per write (a trace is several lines a turn,
 * and each write is a round trip through libuv's thread pool that cost more than the lines' own
 * work), and flushed every LOG_FLUSH_MS and at exit, so a warning of an idle worker (a job it took
 * over from a dead one) is seen within a second, not hours later.
 *
 * Lines are gathered as text and turned into bytes once per batch: one `Buffer.from` per line and
 * sonic-boom's bookkeeping per line cost more than the lines' JSON (measured in benchmark 1). The
 * batch is counted in UTF-16 units (`length`), never measured in bytes while it grows: sonic-boom's
 * own text mode measures its whole pending string on every write (`Buffer.byteLength` of a growing
 * concatenation, flattened each time), so a larger buffer cost more per line. Whatever flushes the
 * stream (the periodic flush, `logger.flush()`, exit) hands the batch over first.
 */
export function bufferedDestination(dest: number | string): DestinationStream {
  const stream = pino.destination({
    dest,
    sync: false,
    minLength: LOG_BUFFER_BYTES,
    // A batch of LOG_BUFFER_BYTES units is at most 3 bytes a unit.
    maxWrite: 4 * LOG_BUFFER_BYTES,
    periodicFlush: LOG_FLUSH_MS,
    contentMode: "buffer",
  });
  const writeBytes = stream.write.bind(stream) as unknown as (data: Buffer) => boolean;
  let batch = "";
  const handOver = () => {
    if (batch === "") return;
    const bytes = Buffer.from(batch);
    batch = "";
    writeBytes(bytes);
  };
  stream.write = (line: string | Buffer) => {
    if (typeof line !== "string") {
      handOver();
      return writeBytes(line);
    }
    batch += line;
    if (batch.length >= LOG_BUFFER_BYTES) handOver();
    return true;
  };
  // sonic-boom's periodic flush and pino's exit handler call these on the stream itself.
  const s = stream as unknown as Record<"flush" | "flushSync" | "end", (...args: unknown[]) => unknown>;
  for (const method of ["flush", "flushSync", "end"] as const) {
    const own = s[method].bind(stream);
    s[method] = (...args: unknown[]) => {
      handOver();
      return own(...args);
    };
  }
  return stream;
}

/** A logger that writes nothing (tests, benchmarks). */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
