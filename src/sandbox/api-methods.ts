import { BOT_SCOPES } from "../core/bot-scopes.ts";
import type { MethodHandler } from "./method-types.ts";
import { agentsMethods } from "./methods/agents.ts";
import { assistantMethods } from "./methods/assistant.ts";
import { authMethods } from "./methods/auth.ts";
import { chatMethods } from "./methods/chat.ts";
import { chatStreamMethods } from "./methods/chat-stream.ts";
import { conversationsMethods } from "./methods/conversations.ts";
import { filesMethods } from "./methods/files.ts";
import { usergroupsMethods } from "./methods/usergroups.ts";
import { usersMethods } from "./methods/users.ts";
import { viewsMethods } from "./methods/views.ts";
import { workObjectMethods } from "./methods/work-objects.ts";

/** Every Web API method the emulator answers; anything else is `unknown_method`. */
export const API_METHODS: Readonly<Record<string, MethodHandler>> = {
  ...authMethods,
  ...chatMethods,
  ...chatStreamMethods,
  ...conversationsMethods,
  ...usersMethods,
  ...usergroupsMethods,
  ...viewsMethods,
  ...filesMethods,
  ...assistantMethods,
  ...agentsMethods,
  ...workObjectMethods,
};

/**
 * Hermes's bot scopes (SLACK-FACTS.md): what the emulator's bot token is granted by default and
 * reports in `x-oauth-scopes` (`SlackApiEmulator.scopes`; a test removes one to see Slack's answers
 * without it).
 */
export const SANDBOX_SCOPES: readonly string[] = BOT_SCOPES;
