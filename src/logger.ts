import pino, { type DestinationStream, type Logger } from "pino";

export type { Logger } from "pino";

export interface LoggerOptions {
  level?: string;
  /** Where JSON lines go; stdout by default. Tests and the CLI pass a file or a memory stream. */
  destination?: DestinationStream;
  /** Applied to every logged object before it is written (PII / secret redaction). */
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
    const bound = clean(bindings) as object;
    return (level, fields, msg) => {
      if (!logger.isLevelEnabled(level)) return false;
      let json: string;
      try {
        // pino's order: level, time, base, the child's bindings, the fields, msg (undefined dropped).
        json = JSON.stringify({
          level: logger.levels.values[level],
          time: Date.now(),
          ...BASE,
          ...bound,
          ...(clean(fields) as object),
          msg: clean(msg),
        });
      } catch {
        return false;
      }
      destination.write(`${json}\n`);
      return true;
    };
  };
  // Children inherit it (pino makes a child with its parent as prototype).
  Object.defineProperty(logger, LINE_WRITERS, { value: writers });
  return logger;
}

/** A quiet process's last lines reach its log within this long (the buffer is not left to fill). */
export const LOG_FLUSH_MS = 1000;

/**
 * Where log lines go: buffered up to 4 KiB per write (a trace is several lines per turn; one syscall
 * each would cost more than the turn's own work), and flushed every LOG_FLUSH_MS and at exit, so a
 * warning of an idle worker (a job it took over from a dead one) is seen now, not hours later.
 */
export function bufferedDestination(dest: number | string): DestinationStream {
  return pino.destination({ dest, sync: false, minLength: 4096, periodicFlush: LOG_FLUSH_MS });
}

/** A logger that writes nothing (tests, benchmarks). */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
