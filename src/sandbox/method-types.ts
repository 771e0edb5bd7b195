import type { ApiArgs } from "./api-args.ts";
import type { Workspace } from "./workspace.ts";

/** What a Web API method handler gets: the call's arguments and the emulator's state. */
export interface MethodContext {
  method: string;
  args: ApiArgs;
  token: string;
  /** The scopes granted to the token (`requireScope` refuses a method without its scope). */
  scopes: ReadonlySet<string>;
  workspace: Workspace;
  /** `http://127.0.0.1:PORT`: the emulator's own address, for URLs it hands out. */
  origin: string;
  /** A new id with Slack's prefix letter: `F…` files, `V…` views. */
  newId: (prefix: string) => string;
  /** Registers an upload URL for a file created by `files.getUploadURLExternal`. */
  uploadUrlFor: (fileId: string) => string;
}

/** The answer's fields; the server adds `ok: true`. Errors are thrown as `SlackApiError`. */
export type MethodResult = Record<string, unknown>;

export type MethodHandler = (ctx: MethodContext) => MethodResult | Promise<MethodResult>;
