import type { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { queueKeyPrefix } from "../../src/core/redis-target.ts";
import { createBullmqTurnQueue } from "../../src/queue/bullmq-turn-queue.ts";
import { createRedisRunStops } from "../../src/queue/run-stops.ts";
import { createRedisSessionStore } from "../../src/store/redis-session-store.ts";
import { PROCESS_TEST_TIMEOUT_MS } from "../helpers/child-process.ts";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { startRedisCluster, type TestRedisCluster } from "../helpers/redis-cluster.ts";
import { turnJob } from "../helpers/redis-queue.ts";
import { answer, ScriptedModelServer } from "../helpers/scripted-model.ts";

const CHANNEL = "C0OPS";

/** Every key on every master of the cluster (SCAN per node: each holds only its own slots). */
async function allKeys(cluster: Cluster): Promise<string[]> {
  const keys: string[] = [];
  for (const node of cluster.nodes("master")) {
    let cursor = "0";
    do {
      const [next, found] = await node.scan(cursor, "COUNT", 500);
      cursor = next;
      keys.push(...found);
    } while (cursor !== "0");
  }
  return keys;
}

describe("on a Redis Cluster (three masters)", () => {
  let cluster: TestRedisCluster;
  let client: Cluster;
  beforeAll(async () => {
    cluster = await startRedisCluster();
    client = cluster.connect();
  }, PROCESS_TEST_TIMEOUT_MS);
  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  it("the queue's scripts need one hash slot: a plain prefix is refused, the hash-tagged one runs jobs", async () => {
    const target = { url: cluster.url, cluster: true };
    // The failure the hash tag prevents, seen on this very cluster (so the cluster is a real one).
    const plain = createBullmqTurnQueue({ redis: target, logger: silentLogger(), prefix: "plain" });
    try {
      await expect(plain.enqueue(turnJob())).rejects.toThrow();
    } finally {
      await plain.stop();
    }
    const prefix = queueKeyPrefix("hermes", true);
    expect(prefix).toBe("{hermes}");
    const queue = createBullmqTurnQueue({ redis: target, logger: silentLogger(), prefix });
    const ran: string[] = [];
    try {
      await queue.process(
        async (job) => {
          if (job.type === "turn") ran.push(job.sessionKey);
        },
        { concurrency: 2 },
      );
      const jobs = [turnJob(), turnJob(), turnJob()];
      for (const job of jobs) await queue.enqueue(job);
      await waitFor(() => ran.length === 3, 30_000, "three jobs run");
      expect(ran.sort()).toEqual(jobs.map((j) => j.sessionKey).sort());
      const slots = new Set(
        await Promise.all(
          (await allKeys(client))
            .filter((k) => k.startsWith("{hermes}"))
            .map((k) => client.cluster("KEYSLOT", k)),
        ),
      );
      expect(slots.size).toBe(1);
    } finally {
      await queue.stop();
    }
  });

  it("sessions, the thread lock and Stop work across the cluster's nodes", async () => {
    const logger = silentLogger();
    // The stores leave a connection they were given open: the test owns these four and closes them.
    const connections = [cluster.connect(), cluster.connect(), cluster.connect(), cluster.connect()];
    const [ca, cb, cc, cd] = connections as [Cluster, Cluster, Cluster, Cluster];
    const a = createRedisSessionStore({ redis: ca, keyPrefix: "hermes:", logger });
    const b = createRedisSessionStore({ redis: cb, keyPrefix: "hermes:", logger });
    const stopsA = createRedisRunStops({ redis: cc, keyPrefix: "hermes:", logger });
    const stopsB = createRedisRunStops({ redis: cd, keyPrefix: "hermes:", logger });
    try {
      // Threads spread over the nodes: each thread's keys hash by its own tag.
      const threads = Array.from({ length: 12 }, (_, i) => `T1:C1:17000000${i}.000100`);
      for (const key of threads) await a.save(key, [{ role: "user", content: key }]);
      for (const key of threads)
        expect((await b.load(key)).messages).toEqual([{ role: "user", content: key }]);
      const nodesUsed = new Set(
        await Promise.all(
          threads.map(async (key) => {
            const slot = await client.cluster("KEYSLOT", `hermes:session:${key}`);
            return client.slots[Number(slot)]?.[0];
          }),
        ),
      );
      expect(nodesUsed.size).toBeGreaterThan(1);

      // One turn per thread, whichever process holds it; the second waits for the first.
      const order: string[] = [];
      let release!: () => void;
      const held = new Promise<void>((r) => {
        release = r;
      });
      const first = a.withLock(threads[0]!, async () => {
        order.push("a start");
        await held;
        order.push("a end");
      });
      await waitFor(() => order.includes("a start"), 10_000, "the first holder");
      const second = b.withLock(threads[0]!, async () => {
        order.push("b");
      });
      release();
      await Promise.all([first, second]);
      expect(order).toEqual(["a start", "a end", "b"]);

      // A Stop asked through one process reaches a run watched by another.
      const watched = stopsB.watch(threads[1]!, Date.now() - 1000);
      await stopsA.request(threads[1]!);
      await waitFor(() => watched.signal.aborted, 10_000, "the stop to arrive");
    } finally {
      await Promise.all([a.close(), b.close(), stopsA.close(), stopsB.close()]);
      await Promise.all(connections.map((c) => c.quit()));
    }
  });

  it(
    "Hermes with HERMES_REDIS_CLUSTER=on answers a mention through the cluster",
    async () => {
      const model = new ScriptedModelServer();
      await model.start();
      let t: TestHermes | undefined;
      try {
        t = await startTestHermes({
          model,
          env: { REDIS_URL: cluster.url, HERMES_REDIS_CLUSTER: "on" },
        });
        model.enqueue(answer("Answered through the cluster."));
        const sent = await t.sender.appMention({ user: "U0USER1", channel: CHANNEL, text: "<@U0HERMES> hi" });
        const ts = sent.message!.ts;
        await waitFor(
          () => t!.thread(CHANNEL, ts)?.some((m) => m.text === "Answered through the cluster."),
          60_000,
          "the answer",
        );
        const keys = await allKeys(client);
        const prefix = t.redisPrefix;
        expect(keys.some((k) => k.startsWith(`{${prefix}}:`))).toBe(true);
        expect(keys.some((k) => k.startsWith(`${prefix}:session:`))).toBe(true);
        // Nothing of the queue outside its hash tag.
        expect(keys.filter((k) => k.startsWith(`${prefix}:turns`))).toEqual([]);
      } finally {
        await t?.stop();
        await model.stop();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
