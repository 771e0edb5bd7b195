import type { AgentRuntime } from "../../agent/run/agent-runtime.ts";
import type { Config } from "../../config.ts";
import type { Logger } from "../../core/logger.ts";
import type { TurnQueue } from "../../queue/turn-queue.ts";
import type { Storage } from "../../storage.ts";
import type { SlackOutput } from "../slack-output.ts";
import type { TicketLinks } from "./ticket-links.ts";

/** What the Work Object listeners read tickets, check access, call Slack and queue clicks with. */
export interface WorkObjectDeps {
  config: Config;
  logger: Logger;
  storage: Pick<Storage, "db" | "users" | "events">;
  runtime: Pick<AgentRuntime, "registry" | "guards">;
  slack: Pick<SlackOutput, "client" | "bot">;
  queue: TurnQueue;
  links: TicketLinks;
}
