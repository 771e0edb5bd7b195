import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { SANDBOX_SCOPES } from "../../src/sandbox/api-methods.ts";
import { suggestedPromptsFor } from "../../src/slack/assistant/suggested-prompts.ts";
import { UNINSTALL_EVENTS } from "../../src/slack/oauth/register-uninstalls.ts";
import { DIRECTORY_EVENTS } from "../../src/slack/references/directory-events.ts";
import { WORK_OBJECT_EVENTS } from "../../src/slack/work-objects/register-work-objects.ts";

interface Manifest {
  features: {
    assistant_view?: unknown;
    agent_view?: {
      agent_description?: string;
      suggested_prompts?: Array<{ title: string; message: string }>;
    };
  };
  oauth_config: { scopes: { bot: string[] } };
  settings: { event_subscriptions: { bot_events: string[] } };
}

const manifest = parse(readFileSync(new URL("../../manifest.yml", import.meta.url), "utf8")) as Manifest;

describe("manifest.yml", () => {
  it("asks for the scopes the emulator grants (the same list), including assistant:write", () => {
    expect(manifest.oauth_config.scopes.bot).toEqual(SANDBOX_SCOPES);
    expect(manifest.oauth_config.scopes.bot).toContain("assistant:write");
  });

  it("subscribes to the events Hermes handles, the agent view's and the directory's included", () => {
    expect(manifest.settings.event_subscriptions.bot_events).toEqual([
      "app_mention",
      "message.im",
      "app_home_opened",
      "app_context_changed",
      "agent_session_stopped",
      ...Object.keys(DIRECTORY_EVENTS),
      ...WORK_OBJECT_EVENTS,
      ...UNINSTALL_EVENTS,
    ]);
  });

  it("turns on the agent view (not the older assistant view) with a description and the members' suggested prompts (at most 4)", () => {
    expect(manifest.features.assistant_view).toBeUndefined();
    const view = manifest.features.agent_view;
    expect(view?.agent_description).toMatch(/\S/);
    expect(view?.suggested_prompts).toEqual(suggestedPromptsFor("user"));
    expect(view!.suggested_prompts!.length).toBeLessThanOrEqual(4);
  });
});
