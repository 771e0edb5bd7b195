/**
 * Hermes's bot scopes, as `manifest.yml` asks for them (`oauth_config.scopes.bot`;
 * test/deploy/manifest.test.ts keeps the two equal): what an OAuth install asks Slack for, and what the
 * sandbox's emulator grants its bot token.
 */
export const BOT_SCOPES: readonly string[] = [
  "app_mentions:read",
  "chat:write",
  "im:history",
  "im:read",
  "im:write",
  "users:read",
  "usergroups:read",
  "commands",
  "channels:history",
  "groups:history",
  "channels:read",
  "groups:read",
  "files:read",
  "files:write",
  "assistant:write",
  "links:read",
  "links:write",
];
