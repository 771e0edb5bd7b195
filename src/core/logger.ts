import { createRequire } from "node:module";
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
  /**
   * `json` (the default): one JSON object a line. `pretty`: the same lines, redacted the same way,
   * written for a person at a terminal (`prettyLines`); `logFormat` picks one for stdout.
   */
  format?: LogFormat;
}

/** How log lines are written: JSON for machines (pipes, files, containers), pretty for a terminal. */
export type LogFormat = "json" | "pretty";

/**
 * The format for a process's stdout: `HERMES_LOG_FORMAT` when it names one, else pretty only when
 * stdout is a terminal (a pipe, a file or a container's log collector gets JSON).
 */
export function logFormat(setting: "auto" | LogFormat, isTTY: boolean | undefined): LogFormat {
  if (setting !== "auto") return setting;
  return isTTY === true ? "pretty" : "json";
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
  const target = options.destination ?? bufferedDestination(1);
  // Pretty lines are made from the finished (redacted) JSON lines, so both formats show the same.
  const destination = options.format === "pretty" ? prettyLines(target) : target;
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
 * stream (the periodic flush, `logger.flush()`, exit) hands the batch over first. That sonic-boom
 * and pino call these methods on the stream itself, and write buffers whole, is pinned against the
 * installed versions by test/library-seams/pino-sonic-boom.test.ts.
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

/** What a pretty line shows besides its time, level and message: the run's context, where known. */
const CONTEXT_KEYS = ["runId", "sessionKey", "tool"] as const;

export interface PrettyLineOptions {
  /** Colour the level and message (ANSI); by default when the terminal supports it (NO_COLOR is honoured). */
  colorize?: boolean;
}

/**
 * A destination that turns each JSON line written to it into one line for a person —
 * `[12:04:05.120] INFO: message runId=… sessionKey=… tool=… {"other":"fields"}` — and writes it to
 * `destination` (still gathered and written in chunks when that is `bufferedDestination`). It reads
 * the lines pino and the line writers produce, after redaction: nothing is shown that the JSON line
 * does not hold. pino-pretty is loaded here, on first use, so a process logging JSON never loads it;
 * its formatter runs in this thread (no worker transport), so flushing and exit work as for JSON.
 */
export function prettyLines(
  destination: DestinationStream,
  options: PrettyLineOptions = {},
): DestinationStream {
  const { prettyFactory } = createRequire(import.meta.url)("pino-pretty") as typeof import("pino-pretty");
  const context = CONTEXT_KEYS.map((k) => `{if ${k}} ${k}={${k}}{end}`).join("");
  const format = prettyFactory({
    ...(options.colorize === undefined ? {} : { colorize: options.colorize }),
    translateTime: "SYS:HH:MM:ss.l",
    ignore: ["pid", "hostname", "app", ...CONTEXT_KEYS].join(","),
    messageFormat: `{msg}${context}`,
    singleLine: true,
  });
  const out = destination as DestinationStream &
    Partial<Record<"flush" | "flushSync" | "end", (...args: unknown[]) => unknown>>;
  const stream: DestinationStream & Record<string, unknown> = {
    write(line: string | Buffer) {
      // Bytes written directly (not a log line) pass through as they are.
      if (typeof line !== "string") return out.write(line as unknown as string);
      const text = format(line);
      return text === undefined ? true : out.write(text.endsWith("\n") ? text : `${text}\n`);
    },
  };
  // `logger.flush()` calls these on the stream pino was given; at exit, `bufferedDestination`
  // writes what it gathered by itself (pino registers its exit flush on that stream).
  for (const method of ["flush", "flushSync", "end"] as const) {
    const own = out[method];
    if (typeof own === "function") stream[method] = (...args: unknown[]) => own.apply(out, args);
  }
  return stream;
}

/** A logger that writes nothing (tests, benchmarks). */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
