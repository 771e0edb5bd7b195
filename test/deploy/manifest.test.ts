import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { SANDBOX_SCOPES } from "../../src/sandbox/api-methods.ts";
import { suggestedPromptsFor } from "../../src/slack/assistant/suggested-prompts.ts";
import { DIRECTORY_EVENTS } from "../../src/slack/references/directory-events.ts";

interface Manifest {
  features: {
    assistant_view?: {
      assistant_description?: string;
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

  it("subscribes to the events Hermes handles, the assistant threads' and the directory's included", () => {
    expect(manifest.settings.event_subscriptions.bot_events).toEqual([
      "app_mention",
      "message.im",
      "app_home_opened",
      "assistant_thread_started",
      "assistant_thread_context_changed",
      ...Object.keys(DIRECTORY_EVENTS),
    ]);
  });

  it("turns on the assistant view with a description and the members' suggested prompts (at most 4)", () => {
    const view = manifest.features.assistant_view;
    expect(view?.assistant_description).toMatch(/\S/);
    expect(view?.suggested_prompts).toEqual(suggestedPromptsFor("user"));
    expect(view!.suggested_prompts!.length).toBeLessThanOrEqual(4);
  });
});
