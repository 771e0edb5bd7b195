import { describe, expect, it } from "vitest";
import { parseRole, roleProblems } from "../../src/boot/process-role.ts";
import { loadConfig } from "../../src/config.ts";

describe("process roles", () => {
  it("reads the role from the command line: all, --receiver, --worker, never both", () => {
    expect(parseRole([])).toBe("all");
    expect(parseRole(["--receiver"])).toBe("receiver");
    expect(parseRole(["--worker"])).toBe("worker");
    expect(parseRole(["--receiver", "--worker"])).toEqual({
      error: expect.stringMatching(/exclude each other/),
    });
  });

  it("a split role needs the shared Redis and Postgres and a Slack token; all runs anywhere", () => {
    const production = loadConfig({
      SLACK_BOT_TOKEN: "xoxb-1",
      SLACK_SIGNING_SECRET: "s",
      REDIS_URL: "redis://127.0.0.1:6379",
      DATABASE_URL: "postgres://127.0.0.1/hermes",
    });
    expect(roleProblems("receiver", production)).toEqual([]);
    expect(roleProblems("worker", production)).toEqual([]);
    const sandbox = loadConfig({});
    expect(roleProblems("all", sandbox)).toEqual([]);
    const problems = roleProblems("receiver", sandbox);
    expect(problems).toHaveLength(3);
    expect(problems.join("\\n")).toMatch(/--receiver` needs REDIS_URL/);
    expect(problems.join("\\n")).toMatch(/needs DATABASE_URL/);
    expect(problems.join("\\n")).toMatch(/needs a Slack token/);
    expect(roleProblems("worker", sandbox)[0]).toMatch(
      /`npm run worker` needs REDIS_URL: the queue it shares with the receivers/,
    );
  });
});
