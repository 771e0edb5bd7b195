import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HermesError } from "../../../src/core/errors.ts";
import { silentLogger } from "../../../src/core/logger.ts";
import { namedSources } from "../../../src/tools/custom/tool-names.ts";
import type { Tool } from "../../../src/tools/define-tool.ts";
import { getCurrentTime } from "../../../src/tools/get-current-time.ts";
import { loadHttpTools } from "../../../src/tools/http/load-http-tools.ts";
import { ToolRegistry } from "../../../src/tools/registry.ts";
import { createMemoryResultStore } from "../../../src/tools/result-store.ts";

const SECRET = "s3cr3t-cmdb-token-7f9a2c";
const env = { CMDB_TOKEN: SECRET };
const root = resolve(import.meta.dirname, "../../..");

interface Seen {
  method: string;
  url: string;
  contentType?: string;
  body: string;
}
const seen: Seen[] = [];
let server: Server;
let base: string;
let tmp: string;

async function readBody(req: IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of req) body += chunk;
  return body;
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "hermes-http-tools-"));
  server = createServer(async (req, res) => {
    const body = await readBody(req);
    seen.push({
      method: req.method ?? "",
      url: req.url ?? "",
      contentType: req.headers["content-type"],
      body,
    });
    if (req.headers.authorization !== `Bearer ${SECRET}`) {
      res.writeHead(401, { "content-type": "text/plain" }).end("missing or wrong token");
      return;
    }
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname.startsWith("/hosts/")) {
      const host = decodeURIComponent(url.pathname.slice("/hosts/".length));
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ host, fields: url.searchParams.get("fields"), owner: "team-db" }));
    } else if (url.pathname.startsWith("/services/") && req.method === "POST") {
      res.writeHead(201, { "content-type": "application/json; charset=utf-8" });
      res.end(JSON.stringify({ id: 42, received: JSON.parse(body) }));
    } else if (url.pathname === "/boom") {
      // A careless API that echoes the credential in its error page.
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(`database exploded\n  while handling Authorization: ${req.headers.authorization}`);
    } else if (url.pathname === "/slow") {
      setTimeout(() => res.writeHead(200).end("too late"), 1500);
    } else if (url.pathname === "/moved") {
      res.writeHead(302, { location: "/whoami" }).end();
    } else if (url.pathname === "/away") {
      // Another origin (localhost ≠ 127.0.0.1): the credentials must not follow.
      res.writeHead(302, { location: `http://localhost:${url.port || req.socket.localPort}/whoami` }).end();
    } else if (url.pathname === "/whoami") {
      res.writeHead(200, { "content-type": "text/plain" }).end(`you sent ${req.headers.authorization}`);
    } else {
      res.writeHead(404).end("no such route");
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await rm(tmp, { recursive: true, force: true });
});

async function yamlFile(text: string): Promise<string> {
  const file = join(tmp, `tools-${Math.random().toString(36).slice(2)}.yaml`);
  await writeFile(file, text);
  return file;
}

const toolsYaml = () => `
- name: get_host
  description: Looks up a host in the CMDB.
  method: GET
  url: ${base}/hosts/{host}?fields={fields}
  input:
    type: object
    properties:
      host: { type: string, description: Host name, maxLength: 100 }
      fields: { type: string }
    required: [host]
  headers:
    Authorization: Bearer \${CMDB_TOKEN}
  level: viewer
- name: create_incident
  description: Opens an incident for a service.
  method: post
  url: ${base}/services/{service}/incidents
  input:
    type: object
    properties:
      service: { type: string }
      title: { type: string, minLength: 3 }
      severity: { type: string, enum: [sev1, sev2, sev3], default: sev3 }
    required: [service, title]
  headers: { Authorization: "Bearer \${CMDB_TOKEN}" }
- name: boom
  description: Always fails.
  method: GET
  url: ${base}/boom
  headers: { Authorization: "Bearer \${CMDB_TOKEN}" }
- name: slow
  description: Answers too late.
  method: GET
  url: ${base}/slow
  timeoutMs: 300
  headers: { Authorization: "Bearer \${CMDB_TOKEN}" }
- name: whoami
  description: Echoes the credential back.
  method: GET
  url: ${base}/whoami
  headers: { Authorization: "Bearer \${CMDB_TOKEN}" }
- name: moved
  description: Redirects within the API.
  method: GET
  url: ${base}/moved
  headers: { Authorization: "Bearer \${CMDB_TOKEN}" }
- name: away
  description: Redirects to another host.
  method: GET
  url: ${base}/away
  headers: { Authorization: "Bearer \${CMDB_TOKEN}" }
`;

async function setup() {
  const tools = await loadHttpTools(await yamlFile(toolsYaml()), { env });
  const registry = new ToolRegistry({ results: createMemoryResultStore(), logger: silentLogger() });
  registry.register(getCurrentTime(), ...tools);
  const run = async (name: string, args: Record<string, unknown>) => {
    const prepared = registry.prepare({ id: "c1", name, arguments: JSON.stringify(args) });
    if (!prepared.ok) throw new Error(prepared.error);
    return registry.execute(prepared.tool, prepared.args, {
      run: { runId: "r1", sessionKey: "T:C:1", userId: "U1" },
      callId: "c1",
      signal: new AbortController().signal,
      logger: silentLogger(),
    });
  };
  return { tools, registry, run };
}

async function loadError(yaml: string, options: { env?: Record<string, string> } = {}): Promise<string> {
  const err = await loadHttpTools(await yamlFile(yaml), { env: options.env ?? env }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HermesError);
  expect((err as HermesError).code).toBe("config_invalid");
  return (err as HermesError).message;
}

describe("HTTP tools from YAML", () => {
  it("loads tools with levels and approval defaults, and never shows the secret to the model", async () => {
    const { tools, registry } = await setup();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t])) as Record<string, Tool>;
    expect(byName.get_host).toMatchObject({ level: "viewer", approval: "never", timeoutMs: 15_000 });
    expect(byName.create_incident).toMatchObject({ level: "user", approval: "always" });
    expect(byName.slow?.timeoutMs).toBe(300);
    const specs = JSON.stringify(registry.specs());
    expect(specs).not.toContain(SECRET);
    const hostSpec = registry.specs(["get_host"])[0];
    expect(hostSpec?.parameters).toMatchObject({
      type: "object",
      properties: { host: { type: "string", description: "Host name", maxLength: 100 } },
      required: ["host"],
      additionalProperties: false,
    });
  });

  it("GET fills the URL template with encoded arguments and sends the header secret", async () => {
    const { run } = await setup();
    seen.length = 0;
    const result = await run("get_host", { host: "db 1/x", fields: "owner&os" });
    expect(result.ok).toBe(true);
    expect(seen[0]).toMatchObject({ method: "GET", url: "/hosts/db%201%2Fx?fields=owner%26os", body: "" });
    expect(JSON.parse(result.content)).toEqual({ host: "db 1/x", fields: "owner&os", owner: "team-db" });
    expect(result.content).toContain('\n  "owner": "team-db"'); // pretty JSON

    seen.length = 0;
    await run("get_host", { host: "db2" });
    expect(seen[0]?.url).toBe("/hosts/db2"); // an optional query value left out drops its pair
  });

  it("POST sends the fields not used in the URL as a JSON body", async () => {
    const { run } = await setup();
    seen.length = 0;
    const result = await run("create_incident", { service: "payments", title: "Checkout is slow" });
    expect(result.ok).toBe(true);
    expect(seen[0]).toMatchObject({ method: "POST", url: "/services/payments/incidents" });
    expect(seen[0]?.contentType).toBe("application/json");
    expect(JSON.parse(seen[0]?.body ?? "")).toEqual({ title: "Checkout is slow", severity: "sev3" });
    expect(JSON.parse(result.content)).toEqual({
      id: 42,
      received: { title: "Checkout is slow", severity: "sev3" },
    });
  });

  it("an arguments error comes back from prepare with the field", async () => {
    const { registry } = await setup();
    const prepared = registry.prepare({ id: "c1", name: "create_incident", arguments: '{"service":"p"}' });
    expect(prepared.ok).toBe(false);
    if (prepared.ok) return;
    expect(prepared.error).toContain("- title:");
  });

  it("a 500 is a failure with the status and an excerpt, and the secret is scrubbed", async () => {
    const { run } = await setup();
    const result = await run("boom", {});
    expect(result.ok).toBe(false);
    expect(result.timedOut).toBe(false);
    expect(result.error).toContain(
      `GET ${base}/boom answered HTTP 500 Internal Server Error: database exploded`,
    );
    expect(result.error).toContain("Authorization: Bearer [secret]");
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });

  it("a server slower than timeoutMs is a timeout", async () => {
    const { run } = await setup();
    const started = Date.now();
    const result = await run("slow", {});
    expect(result.ok).toBe(false);
    expect(result.timedOut).toBe(true);
    expect(result.error).toBe("slow did not finish within 300 ms.");
    expect(Date.now() - started).toBeLessThan(1200);
  });

  it("a result that echoes the secret is scrubbed", async () => {
    const { run } = await setup();
    const result = await run("whoami", {});
    expect(result.ok).toBe(true);
    expect(result.content).toBe("you sent Bearer [secret]");
  });

  it("follows redirects within the API's origin only", async () => {
    const { run } = await setup();
    expect((await run("moved", {})).content).toBe("you sent Bearer [secret]");
    seen.length = 0;
    const away = await run("away", {});
    expect(away.ok).toBe(false);
    expect(away.error).toMatch(/^GET .*\/away: a redirect to http:\/\/localhost:\d+ was not followed\.$/);
    expect(seen.map((r) => r.url)).toEqual(["/away"]);
  });

  it("an unreachable API is a failure naming the reason", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const [tool] = await loadHttpTools(
      await yamlFile(`- { name: down, description: d, method: GET, url: "http://127.0.0.1:${port}/x" }`),
      { env },
    );
    const err = await Promise.resolve(
      tool?.execute(
        {},
        {
          run: { runId: "r", sessionKey: "s", userId: "U1" },
          callId: "c",
          signal: new AbortController().signal,
          logger: silentLogger(),
        },
      ),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HermesError);
    expect((err as HermesError).message).toBe(`GET http://127.0.0.1:${port}/x failed: ECONNREFUSED.`);
  });

  it("invalid entries are reported together, each with the tool and the field", async () => {
    const message = await loadError(`
- name: get_host
  description: d
  method: FETCH
  url: https://api.internal/hosts/{host}
  input: { type: object, properties: { host: { type: string } }, required: [host] }
  timeout: 5000
- name: find_host
  description: d
  method: GET
  url: https://api.internal/hosts/{hostname}?q={query}
  input: { type: object, properties: { query: { type: string }, limit: { type: integer } } }
  headers: { Authorization: "Bearer \${MISSING_TOKEN}" }
- name: get_host
  description: d
  method: POST
  url: ftp://api.internal/x
- description: no name
  method: GET
  url: https://api.internal/{id}
- name: leaky
  description: "Uses token ${SECRET} for you"
  method: GET
  url: https://api.internal/x
  headers: { Authorization: "Bearer \${CMDB_TOKEN}" }
- name: bad_schema
  description: d
  method: GET
  url: https://api.internal/x/{id}
  input: { type: object, properties: { id: { type: strin } }, required: [id] }
`);
    const lines = message.split("\n");
    expect(lines[0]).toMatch(/^HERMES_HTTP_TOOLS .*\.yaml is invalid:$/);
    expect(lines.slice(1)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/tool #1 "get_host": method: Invalid option/),
        expect.stringMatching(
          /tool #1 "get_host": timeout: unknown field \(allowed: name, description, method, url, input, headers, body, level, approval, approvers, dangerous, timeoutMs, maxResultChars\)/,
        ),
        '  - tool #2 "find_host": url: {hostname} is not a property of input',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the YAML's ${NAME} syntax
        '  - tool #2 "find_host": headers: ${MISSING_TOKEN} is not set in the environment',
        '  - tool #3 "get_host": name: already used by tool #1',
        expect.stringMatching(/tool #3 "get_host": url: only http and https URLs are allowed, not ftp:/),
        "  - tool #4: name: is required",
        '  - tool #5 "leaky": description or input contains the value of a header secret; the model would see it',
        expect.stringMatching(/tool #6 "bad_schema": input: .*strin/),
      ]),
    );
    expect(message).not.toContain(SECRET);
  });

  it("checks URL placeholders against the input schema", async () => {
    const base = "description: d\n  url: https://api.internal/h/{host}?q={q}\n  headers: {}";
    const optionalPath = await loadError(`
- name: a
  method: GET
  ${base}
  input: { type: object, properties: { host: { type: string }, q: { type: string } } }
`);
    expect(optionalPath).toContain(
      'tool #1 "a": url: {host} is in the path, so input must list it under required',
    );
    const unused = await loadError(`
- name: a
  method: GET
  ${base}
  input: { type: object, properties: { host: { type: string }, q: { type: string }, limit: { type: integer } }, required: [host] }
`);
    expect(unused).toContain('tool #1 "a": input: property "limit" is not used: put {limit} in the url');
    const hostPlaceholder = await loadError(`
- { name: a, description: d, method: GET, url: "https://{tenant}.api.internal/x", input: { properties: { tenant: { type: string } }, required: [tenant] } }
`);
    expect(hostPlaceholder).toContain("placeholders may only be in the path or query, not in the host");
    const getBody = await loadError(
      "- { name: a, description: d, method: GET, url: 'https://api.internal/x', body: json }",
    );
    expect(getBody).toContain("body: a GET request cannot have a body");
  });

  it("rejects YAML that is not a list, broken YAML, and a name taken by another source", async () => {
    expect(await loadError("name: x\nmethod: GET\n")).toContain("must be a YAML list of tools");
    expect(await loadError("- name: [unclosed\n")).toContain("not valid YAML");
    const file = await yamlFile(
      `- { name: get_current_time, description: d, method: GET, url: "${base}/x" }`,
    );
    const err = await loadHttpTools(file, { env, taken: namedSources([getCurrentTime()], "built-in") }).catch(
      (e: unknown) => e,
    );
    expect((err as Error).message).toBe(
      `Two tools are named "get_current_time": one from built-in, one from ${file} (tool #1 "get_current_time"). Rename one of them.`,
    );
  });

  it("the README example loads", async () => {
    const tools = await loadHttpTools("examples/http-tools.yaml", {
      cwd: root,
      env: { CMDB_TOKEN: "cmdb-token-value", INCIDENTS_API_KEY: "incidents-key-value" },
    });
    expect(tools.map((t) => [t.name, t.level, t.approval])).toEqual([
      ["cmdb_get_host", "viewer", "never"],
      ["search_incidents", "user", "never"],
      ["create_incident", "user", "always"],
    ]);
  });
});
