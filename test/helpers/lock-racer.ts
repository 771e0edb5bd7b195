/**
 * One contender for a data dir's lock, as a process of its own: `node test/helpers/lock-racer.ts
 * <dataDir> <goFile>`. Prints `ready`, waits for `goFile` to exist (so all contenders start at once),
 * then takes the lock: prints `won` and holds it until SIGTERM, or prints `held <pid>` (the holder it
 * was refused by) and exits.
 */
import { existsSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { acquireDataDirLock, DataDirBusyError } from "../../src/store/data-dir-lock.ts";

const [dataDir, goFile] = process.argv.slice(2) as [string, string];
process.stdout.write("ready\n");
while (!existsSync(goFile)) await sleep(2);
try {
  const lock = await acquireDataDirLock({ dataDir, role: "server", command: "lock-racer" });
  process.stdout.write("won\n");
  process.once("SIGTERM", () => {
    lock.release();
    process.exit(0);
  });
  setInterval(() => undefined, 60_000);
} catch (err) {
  if (!(err instanceof DataDirBusyError)) throw err;
  process.stdout.write(`held ${err.holder.pid}\n`);
}
