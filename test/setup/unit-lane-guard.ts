import childProcess from "node:child_process";
import { registerHooks, syncBuiltinESMExports } from "node:module";
import net from "node:net";

/**
 * The unit lane's run-time half (test/setup/unit-lane.ts reads imports): in its forks no server
 * listens (node:http and its siblings listen through net.Server), no socket connects (Postgres,
 * Redis, an HTTP request, a WebSocket), no child process starts (a browser or an MCP server is one)
 * and PGlite does not load. A file that does one of them, through a library the import rule cannot
 * see into, fails with a sentence that says so instead of running in the wrong lane.
 */

const PROCESS_FUNCTIONS = [
  "spawn",
  "spawnSync",
  "exec",
  "execSync",
  "execFile",
  "execFileSync",
  "fork",
] as const;

/** PGlite, the in-process database: the one start that opens no socket and no process. */
export const REFUSED_MODULE = /\/node_modules\/@electric-sql\/pglite\//;

function refusal(what: string): Error {
  return new Error(
    `npm run test:unit runs only files that start nothing, and this one ${what}: ` +
      "it runs in npm test only (test/setup/unit-lane.ts decides from its imports)",
  );
}

/** Refuses listening, connecting, processes and PGlite in this process; returns what undoes it. */
export function installUnitLaneGuard(): () => void {
  const listen = net.Server.prototype.listen;
  const connect = net.Socket.prototype.connect;
  const processFunctions = PROCESS_FUNCTIONS.map((name) => [name, childProcess[name]] as const);
  const mutableChildProcess = childProcess as unknown as Record<string, unknown>;

  net.Server.prototype.listen = () => {
    throw refusal("listens on a port");
  };
  net.Socket.prototype.connect = () => {
    throw refusal("opens a connection");
  };
  for (const name of PROCESS_FUNCTIONS) {
    mutableChildProcess[name] = () => {
      throw refusal("starts a process");
    };
  }
  // `import { spawn } from "node:child_process"` sees the replaced functions too.
  syncBuiltinESMExports();
  const hooks = registerHooks({
    resolve(specifier, context, nextResolve) {
      const resolved = nextResolve(specifier, context);
      if (REFUSED_MODULE.test(resolved.url)) throw refusal("loads PGlite");
      return resolved;
    },
  });

  return () => {
    net.Server.prototype.listen = listen;
    net.Socket.prototype.connect = connect;
    for (const [name, original] of processFunctions) mutableChildProcess[name] = original;
    syncBuiltinESMExports();
    hooks.deregister();
  };
}
