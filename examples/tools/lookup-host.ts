import { lookup } from "node:dns/promises";
import { z } from "zod";
import { defineTool } from "../../src/tools/define-tool.ts";

/**
 * An example HERMES_TOOLS module: every exported `defineTool(...)` value becomes a tool.
 * Start Hermes with `HERMES_TOOLS=examples/tools/lookup-host.ts` to try it.
 */
export const lookupHost = defineTool({
  name: "lookup_host",
  description: "Resolves a host name to its IP addresses (the DNS view of the Hermes server).",
  level: "viewer",
  idempotent: true,
  retries: 1,
  timeoutMs: 5000,
  input: z.object({
    host: z
      .string()
      .regex(/^[A-Za-z0-9.-]{1,253}$/, "a host name like db1.internal")
      .describe("Host name, e.g. db1.internal"),
  }),
  examples: [{ host: "db1.internal" }],
  execute: async ({ host }) => {
    const addresses = await lookup(host, { all: true });
    return { host, addresses: addresses.map((a) => ({ address: a.address, family: `IPv${a.family}` })) };
  },
});
