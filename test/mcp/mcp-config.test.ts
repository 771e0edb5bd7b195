import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HermesError } from "../../src/core/errors.ts";
import { loadMcpConfig, mcpSecretValues, parseMcpServers } from "../../src/mcp/mcp-config.ts";

/** `${NAME}`, the file's secret reference (built, so it is not mistaken for a template placeholder). */
const ref = (name: string) => ["$", "{", name, "}"].join("");
const env = { GH_TOKEN: "ghp-secret-value-123", API_KEY: "key-secret-456" };

function problems(text: string): string {
  try {
    parseMcpServers(text, "mcp.yaml", env);
  } catch (err) {
    expect(err).toBeInstanceOf(HermesError);
    expect((err as HermesError).code).toBe("config_invalid");
    return (err as HermesError).message;
  }
  throw new Error("expected the file to be rejected");
}

describe("HERMES_MCP_SERVERS config", () => {
  it("reads YAML with defaults and resolves secret references in env and headers", () => {
    const servers = parseMcpServers(
      [
        "- name: github",
        "  transport: stdio",
        "  command: npx",
        "  args: [-y, some-server]",
        `  env: { GITHUB_TOKEN: '${ref("GH_TOKEN")}', MODE: plain }`,
        "  trusted: true",
        "  tools:",
        "    create_issue: { approval: always, level: admin }",
        "- name: wiki",
        "  transport: http",
        "  url: https://wiki.internal/mcp",
        `  headers: { Authorization: 'Bearer ${ref("API_KEY")}' }`,
        "  include: ['search_*']",
        "  timeouts: { callMs: 5000 }",
      ].join("\n"),
      "mcp.yaml",
      env,
    );
    expect(servers).toHaveLength(2);
    const [github, wiki] = servers;
    expect(github).toMatchObject({
      name: "github",
      transport: "stdio",
      args: ["-y", "some-server"],
      env: { GITHUB_TOKEN: env.GH_TOKEN, MODE: "plain" },
      trusted: true,
      approval: "by_annotations",
      level: "user",
      include: ["*"],
      exclude: [],
      timeouts: { connectMs: 15_000, callMs: 30_000 },
      tools: { create_issue: { approval: "always", level: "admin" } },
      secrets: [env.GH_TOKEN],
    });
    expect(wiki).toMatchObject({
      transport: "http",
      headers: { Authorization: `Bearer ${env.API_KEY}` },
      trusted: false,
      include: ["search_*"],
      timeouts: { connectMs: 15_000, callMs: 5000 },
      secrets: [env.API_KEY],
    });
  });

  it("reads JSON too", () => {
    const servers = parseMcpServers(
      JSON.stringify([{ name: "fs", transport: "stdio", command: "mcp-server-filesystem", args: ["/tmp"] }]),
      "mcp.json",
      {},
    );
    expect(servers[0]).toMatchObject({ name: "fs", command: "mcp-server-filesystem" });
  });

  it("names the server and the field of every problem, in one error", () => {
    const message = problems(
      [
        "- name: github",
        "  transport: stdio",
        "  comand: npx",
        "- name: wiki",
        "  transport: http",
        "  url: ftp://wiki.internal/mcp",
        "  approval: sometimes",
        "- name: Bad_Name",
        "  transport: stdio",
        "  command: x",
        "- name: ci",
        "  transport: websocket",
        "- name: jira",
        "  transport: http",
        "  url: https://jira.internal/mcp",
        `  headers: { X-Token: '${ref("JIRA_TOKEN")}' }`,
        "  tools: { create: { approval: maybe, colour: red } }",
        "- name: github",
        "  transport: stdio",
        "  command: y",
      ].join("\n"),
    );
    expect(message).toContain("HERMES_MCP_SERVERS mcp.yaml is invalid");
    expect(message).toContain('server #1 "github": command: is required');
    expect(message).toContain('server #1 "github": comand: unknown field');
    expect(message).toContain('server #2 "wiki": url: must be an http(s) URL');
    expect(message).toMatch(/server #2 "wiki": approval: .*never/);
    expect(message).toContain('server #3 "Bad_Name": name: must be 1-20 lowercase letters and digits');
    expect(message).toContain('server #4 "ci": transport: must be "stdio" or "http"');
    expect(message).toContain(
      `server #5 "jira": headers: ${ref("JIRA_TOKEN")} is not set in the environment`,
    );
    expect(message).toMatch(/server #5 "jira": tools\.create\.approval: /);
    expect(message).toContain('server #5 "jira": tools.create.colour: unknown field');
    expect(message).toContain('server #6 "github": name: already used by server #1');
  });

  it("rejects a file that is not a list, is empty, or is not YAML", () => {
    expect(problems("name: github")).toContain("must be a list of servers");
    expect(problems("[]")).toContain("the list of servers is empty");
    expect(problems("- name: [unclosed")).toContain("not valid YAML or JSON");
  });

  it("loads from a file, and reports the secrets it substitutes", async () => {
    const dir = await mkdtemp(join(tmpdir(), "hermes-mcp-config-"));
    try {
      const file = join(dir, "mcp.yaml");
      await writeFile(
        file,
        `- name: wiki\n  transport: http\n  url: https://wiki.internal/mcp\n  headers: { Authorization: 'Bearer ${ref("API_KEY")}' }\n`,
      );
      expect((await loadMcpConfig(file, { env }))[0]?.name).toBe("wiki");
      expect(await mcpSecretValues({ path: file, env })).toEqual([env.API_KEY]);
      expect(await mcpSecretValues({ path: join(dir, "missing.yaml"), env })).toEqual([]);
      await expect(loadMcpConfig(join(dir, "missing.yaml"), { env })).rejects.toThrow(/cannot be read/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
