/**
 * How much the machine itself stalled while a benchmark ran: a bystander process (a 10 ms timer and
 * nothing else, `stall-meter-child.ts`) notes each time its timer fired more than 5 ms late. A
 * stall the bystander also saw is the machine's (other processes had both cores, or the VM was not
 * scheduled), not Hermes' own work; a tail figure measured through many of them says little about
 * Hermes. It costs ~100 timer wake-ups a second (a 1 ms timer would cost Hermes ~3.5 ms of CPU a turn).
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export interface Stall {
  /** When the late tick came, monotonic µs (`process.hrtime`). */
  atUs: number;
  lateMs: number;
}

export async function startStallMeter(): Promise<{ stop(): Promise<Stall[]> }> {
  const child = spawn(process.execPath, [fileURLToPath(new URL("./stall-meter-child.ts", import.meta.url))], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.setEncoding("utf8");
  await new Promise<void>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the stall meter exited (${code})`)));
    child.stdout.on("data", (chunk: string) => {
      out += chunk;
      if (out.startsWith("metering\n")) resolve();
    });
  });
  return {
    async stop() {
      const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
      child.stdin.end();
      const code = await exited;
      const line = out.split("\n")[1];
      if (code !== 0 || !line) throw new Error(`the stall meter failed (exit ${code})`);
      return (JSON.parse(line) as Array<[number, number]>).map(([atUs, lateMs]) => ({ atUs, lateMs }));
    },
  };
}

/** The stalls inside a monotonic-µs window, summed up for a report row. */
export function stallsIn(stalls: Stall[], window: { from: number; to: number }) {
  const inside = stalls.filter((s) => s.atUs >= window.from && s.atUs <= window.to);
  return {
    over20: inside.filter((s) => s.lateMs > 20).length,
    over50: inside.filter((s) => s.lateMs > 50).length,
    maxMs: inside.reduce((m, s) => Math.max(m, s.lateMs), 0),
    totalMs: inside.reduce((m, s) => m + s.lateMs, 0),
  };
}
