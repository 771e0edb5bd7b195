import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Agent, errors } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { installedVersion } from "./installed-version.ts";

/**
 * What `src/http/http-fetch.ts` relies on in undici's request API, against the installed version: the
 * answer's shape, an abort's reason, and how a connection closed before any answer is reported
 * (a `SocketError` whose byte counts tell a kept-alive connection from a new one).
 */
const bytesRead = (e: unknown) => (e instanceof errors.SocketError ? e.socket?.bytesRead : undefined);

describe("undici as Hermes' HTTP clients use it", () => {
  let server: Server | undefined;
  let agent: Agent | undefined;
  afterEach(async () => {
    await agent?.close();
    server?.closeAllConnections();
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
  });

  async function serve(handle: Parameters<typeof createServer>[1]): Promise<string> {
    server = createServer(handle);
    await new Promise<void>((r) => server?.listen(0, "127.0.0.1", r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it("is checked against undici 7.30.2", () => {
    expect(installedVersion("undici")).toBe("7.30.2");
  });

  it("answers with statusCode, statusText, headers (lower-case, repeated ones as arrays) and a readable body", async () => {
    const origin = await serve((_req, res) => {
      res.setHeader("set-cookie", ["a=1", "b=2"]);
      res.writeHead(201, "Made", { "X-One": "1" }).end("body ✓");
    });
    agent = new Agent();
    const answer = await agent.request({ origin, path: "/x?q=1", method: "POST", body: "{}" });
    expect([answer.statusCode, answer.statusText]).toEqual([201, "Made"]);
    expect(answer.headers["x-one"]).toBe("1");
    expect(answer.headers["set-cookie"]).toEqual(["a=1", "b=2"]);
    expect(await answer.body.text()).toBe("body ✓");
  });

  it("rejects an aborted request with the signal's own reason", async () => {
    const origin = await serve(() => {});
    agent = new Agent();
    const controller = new AbortController();
    const reason = new Error("turn cancelled");
    const pending = agent.request({
      origin,
      path: "/",
      method: "POST",
      body: "{}",
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(reason), 20);
    await expect(pending).rejects.toBe(reason);
  });

  it("reports a close before any answer as a SocketError with the connection's bytes read (0 on a new one)", async () => {
    let nth = 0;
    const origin = await serve((req, res) => {
      nth++;
      req.resume();
      req.on("end", () => (nth === 1 ? res.writeHead(200).end("ok") : req.socket.destroy()));
    });
    agent = new Agent({ connections: 1 });
    const request = () => agent?.request({ origin, path: "/", method: "POST", body: "{}" });
    expect(await (await request())?.body.text()).toBe("ok");
    const onKept = await request()?.catch((e: unknown) => e);
    expect(onKept).toBeInstanceOf(errors.SocketError);
    expect(onKept).toMatchObject({ code: "UND_ERR_SOCKET" });
    expect(bytesRead(onKept)).toBeGreaterThan(0);
    const onNew = await request()?.catch((e: unknown) => e);
    expect(bytesRead(onNew)).toBe(0);
  });
});
