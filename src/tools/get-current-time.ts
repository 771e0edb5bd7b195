import { z } from "zod";
import { HermesError } from "../core/errors.ts";
import { defineTool } from "./define-tool.ts";

const isTimeZone = (tz: string) => {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

/** The current time in a time zone: the one asked for, else the requester's, else UTC. */
export const getCurrentTime = (now: () => Date = () => new Date()) =>
  defineTool({
    name: "get_current_time",
    description:
      "The current date and time. Without a timezone it uses the requester's Slack time zone (or UTC).",
    level: "viewer",
    idempotent: true,
    retries: 1,
    timeoutMs: 1000,
    input: z.object({
      timezone: z.string().describe("IANA time zone, e.g. Europe/Berlin or Asia/Shanghai").optional(),
    }),
    execute: ({ timezone }, ctx) => {
      const tz = timezone ?? ctx.run.timezone ?? "UTC";
      if (!isTimeZone(tz)) {
        throw new HermesError(
          "bad_request",
          `Unknown time zone "${tz}". Use an IANA name like Europe/Berlin.`,
        );
      }
      const date = now();
      const local = new Intl.DateTimeFormat("en-CA", {
        timeZone: tz,
        dateStyle: "full",
        timeStyle: "long",
        hourCycle: "h23",
      }).format(date);
      return { timezone: tz, local, iso_utc: date.toISOString() };
    },
  });
