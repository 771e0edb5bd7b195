import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import net from "node:net";
import { describe, expect, it } from "vitest";
import { installUnitLaneGuard } from "./unit-lane-guard.ts";

// Its attempts all throw, but it imports node:child_process and node:net: it runs in npm test only.
describe("the unit lane's guard", () => {
  it("refuses servers, connections, processes and PGlite, and undoes that when asked", () => {
    const require = createRequire(import.meta.url);
    const listen = net.Server.prototype.listen;
    const uninstall = installUnitLaneGuard();
    try {
      expect(() => net.createServer().listen(0)).toThrow(
        /npm run test:unit runs only files that start nothing/,
      );
      expect(() => new net.Socket().connect(1, "127.0.0.1")).toThrow(/opens a connection/);
      // The named import sees the replaced function too.
      expect(() => spawnSync(process.execPath, ["--version"])).toThrow(/starts a process/);
      expect(() => require.resolve("@electric-sql/pglite")).toThrow(/loads PGlite/);
    } finally {
      uninstall();
    }
    expect(net.Server.prototype.listen).toBe(listen);
    expect(require.resolve("@electric-sql/pglite")).toMatch(/pglite/);
  });
});
