/**
 * Counts the statements a process sends to Postgres, from outside it: a TCP proxy between the process
 * and the server (point its `DATABASE_URL` at `proxiedUrl`) that reads each connection's frontend
 * messages (`pg-frontend-parser.ts`). Bytes pass through unchanged; a connection that turns to TLS is
 * passed through unread (and counted as such).
 */
import { connect, createServer, type Server, type Socket } from "node:net";
import { FrontendParser, normalizeStatement, type StatementSink } from "./pg-frontend-parser.ts";

/** Statements counted so far: in all, by kind, and by normalized text. */
export interface StatementCounts {
  total: number;
  simple: number;
  extended: number;
  byText: Map<string, number>;
  /** Connections opened through the proxy, and how many of them could not be read (TLS). */
  connections: number;
  opaqueConnections: number;
}

/** `after − before`, statement by statement (texts seen only before are left out). */
export function countsBetween(before: StatementCounts, after: StatementCounts): StatementCounts {
  const byText = new Map<string, number>();
  for (const [text, n] of after.byText) {
    const d = n - (before.byText.get(text) ?? 0);
    if (d > 0) byText.set(text, d);
  }
  return {
    total: after.total - before.total,
    simple: after.simple - before.simple,
    extended: after.extended - before.extended,
    byText,
    connections: after.connections - before.connections,
    opaqueConnections: after.opaqueConnections - before.opaqueConnections,
  };
}

export interface PgStatementCounter {
  /** `databaseUrl` with its host and port replaced by the proxy's. */
  proxiedUrl(databaseUrl: string): string;
  /** A copy of the counts so far. */
  snapshot(): StatementCounts;
  close(): Promise<void>;
}

/** A proxy on 127.0.0.1 (a free port) to `upstream`'s host and port, counting what passes. */
export async function startPgStatementCounter(upstream: string): Promise<PgStatementCounter> {
  const target = new URL(upstream);
  const host = target.hostname || "127.0.0.1";
  const port = Number(target.port || 5432);
  const counts: StatementCounts = {
    total: 0,
    simple: 0,
    extended: 0,
    byText: new Map(),
    connections: 0,
    opaqueConnections: 0,
  };
  const sink: StatementSink = (text, kind) => {
    counts.total++;
    counts[kind]++;
    const key = normalizeStatement(text);
    counts.byText.set(key, (counts.byText.get(key) ?? 0) + 1);
  };
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    counts.connections++;
    const parser = new FrontendParser(sink);
    const server = connect({ host, port, noDelay: true });
    client.setNoDelay(true);
    for (const s of [client, server]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
    }
    let counted = false;
    const countOpaque = () => {
      if (parser.opaque && !counted) {
        counted = true;
        counts.opaqueConnections++;
      }
    };
    client.on("data", (chunk: Buffer) => {
      parser.push(chunk);
      countOpaque();
      server.write(chunk);
    });
    server.on("data", (chunk: Buffer) => {
      parser.pushFromServer(chunk);
      countOpaque();
      client.write(chunk);
    });
    client.on("end", () => server.end());
    server.on("end", () => client.end());
    client.on("error", () => server.destroy());
    server.on("error", () => client.destroy());
    client.on("close", () => server.destroy());
    server.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const own = server.address();
  if (!own || typeof own === "string") throw new Error("the Postgres proxy has no port");
  return {
    proxiedUrl(databaseUrl) {
      const u = new URL(databaseUrl);
      u.hostname = "127.0.0.1";
      u.port = String(own.port);
      return u.toString();
    },
    snapshot: () => ({ ...counts, byText: new Map(counts.byText) }),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
