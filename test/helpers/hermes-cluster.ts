import { type HermesProcess, startHermesProcess } from "./hermes-process.ts";
import { type HermesWorkerProcess, startHermesWorkerProcess } from "./hermes-worker-process.ts";

/** One Hermes process of a cluster, by its label (`r1`, `w2`, …). */
export interface ClusterMember {
  label: string;
  kind: "receiver" | "worker";
  pid: number;
  output(): string;
  kill9(): Promise<void>;
}

export interface ReceiverMember extends ClusterMember {
  kind: "receiver";
  /** Where Slack posts events, interactions and commands: `http://127.0.0.1:<port>/slack/events`. */
  eventsUrl: string;
}

export interface HermesCluster {
  receivers: ReceiverMember[];
  workers: ClusterMember[];
  all: ClusterMember[];
  member(label: string): ClusterMember;
  /** `kill -9` of every process still running, by pid. Safe to call more than once. */
  killAll(): Promise<void>;
}

/**
 * Several Hermes processes on one Redis and one Postgres, started at the same time (as a deployment
 * rolls out): `receivers` with `receiverArgs` (`npm start [args]`, an HTTP port each) labelled r1…,
 * and `workers` (`npm run worker`) labelled w1…; `env(label)` is each one's environment. Resolves
 * when all are up; if one fails to start, every other is killed before this throws.
 */
export async function startHermesCluster(spec: {
  receivers: number;
  workers: number;
  receiverArgs: string[];
  env(label: string): Record<string, string>;
}): Promise<HermesCluster> {
  const receiverLabels = Array.from({ length: spec.receivers }, (_, i) => `r${i + 1}`);
  const workerLabels = Array.from({ length: spec.workers }, (_, i) => `w${i + 1}`);
  const started = await Promise.allSettled([
    ...receiverLabels.map(async (label) =>
      receiverMember(label, await startHermesProcess(spec.env(label), { args: spec.receiverArgs })),
    ),
    ...workerLabels.map(async (label) =>
      workerMember(label, await startHermesWorkerProcess(spec.env(label))),
    ),
  ]);
  const members = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  const failures = started.flatMap((s) => (s.status === "rejected" ? [s.reason] : []));
  if (failures.length > 0) {
    await Promise.all(members.map((m) => m.kill9()));
    throw new Error(
      `${failures.length} of ${started.length} Hermes processes did not start:\n${failures.map(String).join("\n---\n")}`,
    );
  }
  const receivers = members.filter((m): m is ReceiverMember => m.kind === "receiver");
  const workers = members.filter((m) => m.kind === "worker");
  return {
    receivers,
    workers,
    all: members,
    member(label) {
      const found = members.find((m) => m.label === label);
      if (!found) throw new Error(`no cluster process labelled ${label}`);
      return found;
    },
    async killAll() {
      await Promise.all(members.map((m) => m.kill9()));
    },
  };
}

function receiverMember(label: string, p: HermesProcess): ReceiverMember {
  return {
    label,
    kind: "receiver",
    pid: p.pid,
    eventsUrl: `${p.origin}/slack/events`,
    output: p.output,
    kill9: p.kill9,
  };
}

function workerMember(label: string, p: HermesWorkerProcess): ClusterMember {
  return { label, kind: "worker", pid: p.pid, output: p.output, kill9: p.kill9 };
}
