// Preloaded (`node --import`) by `npm start`, `npm run worker` and the CLIs in package.json: the
// variables of `.env` in the working directory (npm runs scripts in the checkout) join the
// environment before anything reads it. A variable already set in the environment wins over the
// file, as with Node's own --env-file. `HERMES_ENV_FILE` names another file instead, which must exist
// (`/dev/null`: none; the tests use it so a developer's own `.env` stays out of what they start).
// Plain JavaScript and no shell syntax in the scripts, so it works wherever npm and Node run.
import { existsSync } from "node:fs";

const named = process.env.HERMES_ENV_FILE;
if (named) {
  try {
    process.loadEnvFile(named);
  } catch (err) {
    console.error(
      `HERMES_ENV_FILE=${named} cannot be read (${err.code ?? err.message}): name an existing file.`,
    );
    process.exit(2);
  }
} else if (existsSync(".env")) {
  process.loadEnvFile(".env");
}
