import { Workspace, type WorkspaceOptions } from "./workspace.ts";

/** Ids of the demo workspace; the same ones the fixtures under `shared/fixtures/slack/` use. */
export const DEMO = {
  team: "T0001",
  bot: "U0HERMES",
  botId: "B0HERMES",
  appId: "A0HERMES1",
  admin: "U0ADMIN",
  user: "U0USER1",
  wangLei: "U0WANGLEI",
  general: "C0GENERAL",
  ops: "C0OPS",
  dmAdmin: "D0ADMIN",
  dmUser: "D0USER1",
  dmWangLei: "D0WANGLEI",
  /** The `@netops` user group: Wang Lei and Zhang Wei. */
  netops: "S0NETOPS",
} as const;

/**
 * A workspace with the Hermes bot, an admin (Zhang Wei) and two members (Li Ming, Wang Lei), in
 * #general and #ops with the bot, a DM between each person and the bot, and the user group
 * `@netops` (Wang Lei and Zhang Wei).
 */
export function seedDemoWorkspace(options: WorkspaceOptions = {}): Workspace {
  const workspace = new Workspace(options);
  workspace.addUser({
    id: DEMO.bot,
    name: "hermes",
    realName: "Hermes",
    isBot: true,
    botId: DEMO.botId,
  });
  workspace.addUser({ id: DEMO.admin, name: "zhang.wei", realName: "Zhang Wei", isAdmin: true });
  workspace.addUser({ id: DEMO.user, name: "li.ming", realName: "Li Ming" });
  workspace.addUser({ id: DEMO.wangLei, name: "wang.lei", realName: "Wang Lei" });
  const everyone = [DEMO.bot, DEMO.admin, DEMO.user, DEMO.wangLei];
  workspace.addChannel({ id: DEMO.general, name: "general", members: everyone });
  workspace.addChannel({ id: DEMO.ops, name: "ops", members: everyone });
  for (const user of [DEMO.admin, DEMO.user, DEMO.wangLei]) workspace.openDm(user);
  seedDemoUserGroups(workspace);
  return workspace;
}

/** The demo's user group `@netops`; user groups are not kept across a restart, so a restored workspace gets it again. */
export function seedDemoUserGroups(workspace: Workspace): void {
  if (workspace.userGroups.get(DEMO.netops)) return;
  workspace.userGroups.add({
    id: DEMO.netops,
    handle: "netops",
    name: "Network Operations",
    users: [DEMO.wangLei, DEMO.admin],
    createdBy: DEMO.admin,
  });
}
