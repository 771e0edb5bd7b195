/**
 * The bystander of `stall-meter.ts`: a process that does nothing but a 10 ms timer, and notes each
 * time the timer fired more than 5 ms late (the machine did not run it: other processes had the
 * cores, or the VM was not scheduled). On stdin's end it prints the stalls as one JSON line:
 * `[[atUs, lateMs], …]`, `atUs` on the monotonic clock of `process.hrtime` (as in any process).
 * Not 1 ms: a process woken 1,000 times a second on a 2-core machine is no bystander. Beside the
 * end-to-end turns it added ~3.5 ms of CPU to each of Hermes' turns and 2–3 ms to own time per step
 * (alternating rounds with and without it); the table counts stalls over 20 ms, which 10 ms sees.
 */
const INTERVAL_MS = 10;
const stalls: Array<[number, number]> = [];
let last = process.hrtime.bigint();
const timer = setInterval(() => {
  const now = process.hrtime.bigint();
  const lateMs = Number(now - last) / 1e6 - INTERVAL_MS;
  if (lateMs > 5) stalls.push([Number(now / 1000n), Math.round(lateMs * 10) / 10]);
  last = now;
}, INTERVAL_MS);
process.stdout.write("metering\n");
process.stdin.resume();
process.stdin.on("end", () => {
  clearInterval(timer);
  process.stdout.write(`${JSON.stringify(stalls)}\n`);
});
