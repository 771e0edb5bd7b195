import type { Database } from "../../store/db.ts";
import type { SlackPort } from "../slack-port.ts";

/** What the ticket tools need; `main.ts` passes them in. */
export interface TicketToolsOptions {
  db: Database;
  /** An assignee must be a live Slack user (`getUser`); names and ids become ids through the directory. */
  slack: Pick<
    SlackPort,
    | "getUser"
    | "loadedUsers"
    | "loadedChannels"
    | "loadedUserGroups"
    | "directoryLoads"
    | "userById"
    | "channelById"
  >;
  /**
   * Is this user an admin (HERMES_ADMINS or `users.level`)? Decides updates of other people's
   * tickets: code decides that permission, never the model.
   */
  isAdmin(userId: string): boolean | Promise<boolean>;
}
