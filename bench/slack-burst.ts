/**
 * `npm run bench:slack-burst [-- --threads 200 --scale 1]`: a burst of threads in one Slack channel
 * (plus 5 in another) against the Slack emulator enforcing Slack's published Web API rates × `scale`,
 * with Hermes pacing itself to the same rates (the real app in process: Bolt over HTTP, Postgres,
 * scripted model at 50 ms per call, one tool call per turn). Prints how long until every thread is
 * answered, answer latency, how many answers replaced their working message, progress updates shown,
 * 429s, and when the other channel was answered. At scale 1 (Slack's own rates) 200 threads take
 * minutes: posting is ~1 message per second per channel. It asserts nothing.
 */
import { describeBurst, runSlackBurst } from "../test/slack/rate-limit/burst-scenario.ts";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  const v = i > 0 ? Number(process.argv[i + 1]) : fallback;
  if (!(v > 0)) throw new Error(`--${name} must be a positive number`);
  return v;
};

const report = await runSlackBurst({
  threads: arg("threads", 200),
  quietThreads: 5,
  scale: arg("scale", 1),
});
console.log(describeBurst(report));
if (report.wrongAnswers.length > 0) console.log("wrong answers:", report.wrongAnswers.slice(0, 10));
process.exit(0);
