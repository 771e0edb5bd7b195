/**
 * The bystander of `stall-meter.ts`: a process that does nothing but a 1 ms timer, and notes each
 * time the timer fired more than 5 ms late (the machine did not run it: other processes had the
 * cores, or the VM was not scheduled). On stdin's end it prints the stalls as one JSON line:
 * `[[atUs, lateMs], …]`, `atUs` on the monotonic clock of `process.hrtime` (as in any process).
 */
const stalls: Array<[number, number]> = [];
let last = process.hrtime.bigint();
const timer = setInterval(() => {
  const now = process.hrtime.bigint();
  const lateMs = Number(now - last) / 1e6 - 1;
  if (lateMs > 5) stalls.push([Number(now / 1000n), Math.round(lateMs * 10) / 10]);
  last = now;
}, 1);
process.stdout.write("metering\n");
process.stdin.resume();
process.stdin.on("end", () => {
  clearInterval(timer);
  process.stdout.write(`${JSON.stringify(stalls)}\n`);
});
