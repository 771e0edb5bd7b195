import pino, { type DestinationStream, type Logger } from "pino";

export type { Logger } from "pino";

export interface LoggerOptions {
  level?: string;
  /** Where JSON lines go; stdout by default. Tests and the CLI pass a file or a memory stream. */
  destination?: DestinationStream;
  /** Applied to every logged object before it is written (PII / secret redaction). */
  redact?: (value: unknown) => unknown;
}

/** One pino logger for the process; children carry `runId`, `sessionKey`, `tool`. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const redact = options.redact;
  return pino(
    {
      level: options.level ?? "info",
      base: { app: "hermes" },
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
    options.destination ?? bufferedDestination(1),
  );
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
