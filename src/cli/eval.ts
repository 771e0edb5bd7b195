import { evalCommand } from "../eval/eval-command.ts";

evalCommand(process.argv.slice(2), {
  env: process.env,
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
}).then(
  (code) => process.exit(code),
  (err) => {
    console.error(`hermes eval: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(2);
  },
);
