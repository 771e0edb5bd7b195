import { writeFileSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";

/**
 * An internal HTTP API with a side effect, for reliability tests: each POST is one effect, counted.
 * `hold()` keeps the next requests open (the tool is "running") until `release()`, so a test can
 * crash or cut something while a side-effecting call is in flight and see whether it ran twice.
 */
export async function startEffectsServer() {
  const effects: Array<Record<string, unknown>> = [];
  const held: ServerResponse[] = [];
  let holding = false;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      effects.push(text ? (JSON.parse(text) as Record<string, unknown>) : {});
      const id = effects.length;
      if (holding) held.push(res);
      else answer(res, id);
    });
  });
  const answer = (res: ServerResponse, id: number) => {
    if (res.destroyed) return;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ ok: true, id }));
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    effects,
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      for (const res of held.splice(0)) answer(res, effects.length);
    },
    /**
     * Writes a HERMES_HTTP_TOOLS file with `notify_ops` (POST, no approval, level user): a
     * side-effecting tool that runs without a human, the case a crash or an outage must not repeat.
     */
    writeToolsFile(dir: string): string {
      const path = join(dir, "effects-tools.yaml");
      writeFileSync(
        path,
        [
          "- name: notify_ops",
          "  description: Pages the on-call engineer with a note (a side effect).",
          "  method: POST",
          `  url: http://127.0.0.1:${port}/effect`,
          "  approval: never",
          "  level: user",
          "  timeoutMs: 300000",
          "  input:",
          "    type: object",
          "    properties:",
          "      note: { type: string }",
          "    required: [note]",
          "",
        ].join("\n"),
      );
      return path;
    },
    async stop() {
      for (const res of held.splice(0)) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type EffectsServer = Awaited<ReturnType<typeof startEffectsServer>>;
