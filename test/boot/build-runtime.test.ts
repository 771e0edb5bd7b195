import { describe, expect, it } from "vitest";
import { describeModel } from "../../src/boot/build-runtime.ts";
import { loadConfig } from "../../src/config.ts";

describe("the model line", () => {
  it("names the model, its server and the fallback, or command mode", () => {
    expect(describeModel(loadConfig({}))).toBe("command mode (no model configured)");
    expect(describeModel(loadConfig({ OPENAI_API_KEY: "sk-x" }))).toBe("model gpt-4o-mini at api.openai.com");
    expect(
      describeModel(
        loadConfig({
          OPENAI_BASE_URL: "http://127.0.0.1:11434/v1",
          HERMES_MODEL: "m",
          HERMES_FALLBACK_MODEL: "f",
        }),
      ),
    ).toBe("model m at http://127.0.0.1:11434/v1, fallback f at http://127.0.0.1:11434/v1");
  });
});
