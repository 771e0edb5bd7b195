import { LogLevel, type Logger as SlackLogger } from "@slack/logger";
import type { Logger } from "../core/logger.ts";

const LEVELS: Record<LogLevel, string> = {
  [LogLevel.DEBUG]: "debug",
  [LogLevel.INFO]: "info",
  [LogLevel.WARN]: "warn",
  [LogLevel.ERROR]: "error",
};

/** Bolt's and the Web API client's logger interface, writing through our pino logger (so it is redacted too). */
export function slackLogger(logger: Logger, name = "slack"): SlackLogger {
  let log = logger.child({ component: name });
  let level: LogLevel = LogLevel.INFO;
  const write =
    (method: "debug" | "info" | "warn" | "error") =>
    (...msg: unknown[]) => {
      // The Web API client logs every request and result at debug: skip joining what is not written.
      if (!log.isLevelEnabled(method)) return;
      log[method](
        msg
          .map((m) => (m instanceof Error ? m.message : typeof m === "string" ? m : JSON.stringify(m)))
          .join(" "),
      );
    };
  return {
    debug: write("debug"),
    info: write("info"),
    warn: write("warn"),
    error: write("error"),
    setLevel(l: LogLevel) {
      level = l;
      log.level = LEVELS[l];
    },
    getLevel: () => level,
    setName(n: string) {
      log = logger.child({ component: n });
    },
  };
}
