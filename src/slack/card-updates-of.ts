import type { AgentRuntime } from "../agent/run/agent-runtime.ts";
import type { Logger } from "../core/logger.ts";
import type { CardUpdates } from "./deliver-result.ts";
import type { SlackOutput } from "./slack-output.ts";

/** What a handler holds to update approval cards: the tool registry (for the cards' text) and the Slack client. */
export interface CardDeps {
  logger: Logger;
  runtime: Pick<AgentRuntime, "registry">;
  slack: Pick<SlackOutput, "client" | "redactor">;
}

/** The parts `deliver-result.ts` updates a card with, taken out of their groups. */
export function cardUpdatesOf(s: CardDeps): CardUpdates {
  return {
    logger: s.logger,
    registry: s.runtime.registry,
    client: s.slack.client,
    redactor: s.slack.redactor,
  };
}
