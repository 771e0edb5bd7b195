import type { WebClient } from "@slack/web-api";
import { HermesError } from "../../core/errors.ts";
import type { Redactor } from "../../policy/redact.ts";
import type { SlackPort } from "../../tools/slack-port.ts";
import { PacedWebClient } from "../rate-limit/paced-web-client.ts";
import type { WorkspaceDirectory } from "../references/workspace-directory.ts";
import type { BotIdentity, SlackOutput } from "../slack-output.ts";
import type { SlackWorkspaces } from "./slack-workspaces.ts";

const NO_WORKSPACE =
  "This work is not tied to a Slack workspace Hermes is installed in, so it cannot reach Slack. Install the app in the workspace (/slack/install) and try again.";

/**
 * The process's `SlackOutput` with OAuth installs: every part (clients, tools' port, directory, bot)
 * is the one of the workspace whose work is running (`SlackWorkspaces.run`), looked up at each use,
 * so the parts built once at start (turn output, tools, listeners) call Slack with the right token.
 * A call made outside any workspace's work is refused with a sentence (and the bot's identity reads
 * as unknown there).
 */
export function teamOutputFacade(
  workspaces: Pick<SlackWorkspaces<SlackOutput>, "current" | "connected">,
  redactor: Redactor,
  o: { slackApiUrl?: string | undefined } = {},
): SlackOutput {
  // The same for every workspace: read where the clients are built (e.g. the file hosts allowed).
  const shared = { slackApiUrl: o.slackApiUrl ?? "https://slack.com/api/" };
  const current = () => workspaces.current();
  const required = () => {
    const output = current();
    if (!output) throw new HermesError("bad_request", NO_WORKSPACE);
    return output;
  };
  return {
    client: follow(
      () => current()?.client,
      required,
      Object.create(PacedWebClient.prototype) as WebClient,
      shared,
    ),
    progressClient: follow(
      () => current()?.progressClient,
      required,
      Object.create(PacedWebClient.prototype) as WebClient,
      shared,
    ),
    slack: follow(() => current()?.slack, required, {} as SlackPort),
    directory: follow(() => current()?.directory, required, {} as WorkspaceDirectory, {
      // Stopping the process stops every workspace's directory.
      stop: () => {
        for (const output of workspaces.connected()) output.directory?.stop();
      },
    }),
    redactor,
    bot: follow(() => current()?.bot, required, {} as BotIdentity, {}, true),
  };
}

/**
 * An object whose properties are those of `of()` at the moment they are read (methods bound to it).
 * With no `of()`, a property is a stand-in that throws `required`'s error when called (or undefined,
 * for `plain` objects such as the bot's identity).
 */
function follow<T extends object>(
  of: () => T | undefined,
  required: () => unknown,
  shape: T,
  own: Record<string, unknown> = {},
  plain = false,
): T {
  return new Proxy(shape, {
    get(_, prop) {
      if (typeof prop === "string" && prop in own) return own[prop];
      const target = of();
      if (!target)
        return plain || prop === "then" || typeof prop === "symbol" ? undefined : unavailable(required);
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
    has(_, prop) {
      const target = of();
      return target ? Reflect.has(target, prop) : false;
    },
  });
}

/** A method (or a group of them, `client.chat`) whose call is refused with `required`'s error. */
function unavailable(required: () => unknown): unknown {
  return new Proxy(() => undefined, {
    get: (_, prop) => (prop === "then" || typeof prop === "symbol" ? undefined : unavailable(required)),
    apply: () => Promise.resolve().then(required),
  });
}
