import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ErrorCode } from "@slack/bolt";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpAck } from "../../src/slack/http-ack.ts";

/** Answers one request with `respond`, and returns what the client got. */
async function exchange(respond: (res: ServerResponse) => Promise<void> | void) {
  server = createServer((_req, res) => void respond(res));
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const res = await fetch(`http://127.0.0.1:${port}/`, { method: "POST" });
  return { status: res.status, type: res.headers.get("content-type"), body: await res.text() };
}

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

describe("createHttpAck", () => {
  it("answers 200 once, as Bolt's receiver does; a second ack throws Bolt's multiple-ack error", async () => {
    let second: unknown;
    const got = await exchange(async (res) => {
      const http = createHttpAck(res, 10_000, () => undefined);
      await http.ack({ text: "hi" });
      second = await http.ack().catch((err: { code?: unknown }) => err.code);
    });
    expect(got).toEqual({ status: 200, type: "application/json", body: '{"text":"hi"}' });
    expect(second).toBe(ErrorCode.ReceiverMultipleAckError);
  });

  it("a request not acked in time gets a 404, and says so once", async () => {
    let timeouts = 0;
    let http: ReturnType<typeof createHttpAck> | undefined;
    const got = await exchange((res) => {
      http = createHttpAck(res, 20, () => timeouts++);
    });
    expect(got.status).toBe(404);
    expect(timeouts).toBe(1);
    expect(http?.acked).toBe(true);
  });
});
