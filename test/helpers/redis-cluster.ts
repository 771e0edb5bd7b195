import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Cluster } from "ioredis";
import { runProcess, type StartedProcess, startProcess } from "./child-process.ts";

/** A real Redis Cluster of three masters (Debian's redis-server), started for one test file. */
export interface TestRedisCluster {
  /** Seed node URL: what REDIS_URL holds with HERMES_REDIS_CLUSTER=on. */
  url: string;
  ports: number[];
  connect(): Cluster;
  stop(): Promise<void>;
}

/** A free TCP port whose cluster bus port (port + 10000) is free too. */
async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = createServer();
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    if (port + 10_000 > 65_535) continue;
    const busFree = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(false));
      server.listen(port + 10_000, "127.0.0.1", () => server.close(() => resolve(true)));
    });
    if (busFree) return port;
  }
}

export async function startRedisCluster(): Promise<TestRedisCluster> {
  const dir = await mkdtemp(join(tmpdir(), "hermes-redis-cluster-"));
  const nodes: StartedProcess[] = [];
  const ports: number[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      ports.push(port);
      const node = startProcess(
        "redis-server",
        [
          "--port",
          String(port),
          "--bind",
          "127.0.0.1",
          "--cluster-enabled",
          "yes",
          "--cluster-config-file",
          join(dir, `nodes-${port}.conf`),
          "--dir",
          dir,
          "--save",
          "",
          "--appendonly",
          "no",
        ],
        { env: process.env },
      );
      nodes.push(node);
    }
    for (const node of nodes)
      await node.waitForOutput(/Ready to accept connections/, "a Redis Cluster node ready");
    const created = await runProcess(
      "redis-cli",
      [
        "--cluster",
        "create",
        ...ports.map((p) => `127.0.0.1:${p}`),
        "--cluster-replicas",
        "0",
        "--cluster-yes",
      ],
      { env: process.env, timeoutMs: 60_000 },
    );
    if (created.code !== 0)
      throw new Error(`redis-cli --cluster create failed:\n${created.stdout}${created.stderr}`);
    const connect = () =>
      new Cluster(
        ports.map((port) => ({ host: "127.0.0.1", port })),
        { redisOptions: { maxRetriesPerRequest: 2 } },
      );
    // Every slot served before the test starts.
    const probe = connect();
    try {
      for (;;) {
        const info = await probe.cluster("INFO");
        if (/cluster_state:ok/.test(String(info))) break;
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      probe.disconnect();
    }
    return {
      url: `redis://127.0.0.1:${ports[0]}`,
      ports,
      connect,
      async stop() {
        await Promise.all(nodes.map((n) => n.stop()));
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await Promise.all(nodes.map((n) => n.stop()));
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}
