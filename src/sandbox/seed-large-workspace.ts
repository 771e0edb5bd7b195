import type { Workspace } from "./workspace.ts";

const GIVEN = [
  "wei",
  "fang",
  "na",
  "min",
  "jing",
  "li",
  "qiang",
  "lei",
  "jun",
  "yang",
  "yong",
  "yan",
  "jie",
  "tao",
  "ming",
  "chao",
  "xiu",
  "xia",
  "ping",
  "gang",
  "hui",
  "hua",
  "bin",
  "bo",
  "dan",
  "ning",
  "peng",
  "rui",
  "kai",
  "hao",
];
const FAMILY = [
  "wang",
  "li",
  "zhang",
  "liu",
  "chen",
  "yang",
  "huang",
  "zhao",
  "wu",
  "zhou",
  "xu",
  "sun",
  "ma",
  "zhu",
  "hu",
  "guo",
  "he",
  "gao",
  "lin",
  "luo",
];
const CHANNEL_KINDS = ["incident", "proj", "team", "help", "eng", "ops", "sales", "design"];

const capital = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
const pad = (i: number) => String(i).padStart(6, "0");

/** The `i`-th generated person: id, handle and real name (real names repeat; handles never do). */
export function largeUser(i: number): { id: string; handle: string; realName: string } {
  const given = GIVEN[i % GIVEN.length]!;
  const family = FAMILY[Math.floor(i / GIVEN.length) % FAMILY.length]!;
  const round = Math.floor(i / (GIVEN.length * FAMILY.length));
  return {
    id: `ULG${pad(i)}`,
    handle: `${given}.${family}${round ? round : ""}`,
    realName: `${capital(given)} ${capital(family)}`,
  };
}

/** The `i`-th generated channel (`incident-0`, `proj-0`, …, `incident-1`, …); every tenth is private with the bot in it. */
export function largeChannel(i: number): { id: string; name: string; isPrivate: boolean } {
  const kind = CHANNEL_KINDS[i % CHANNEL_KINDS.length]!;
  return {
    id: `CLG${pad(i)}`,
    name: `${kind}-${Math.floor(i / CHANNEL_KINDS.length)}`,
    isPrivate: i % 10 === 9,
  };
}

/** The `i`-th generated user group (`@squad-0`, `@squad-1`, …), with a few generated people in it. */
export function largeGroup(i: number): { id: string; handle: string; name: string } {
  return { id: `SLG${pad(i)}`, handle: `squad-${i}`, name: `Squad ${i}` };
}

export interface LargeWorkspaceSize {
  users?: number;
  channels?: number;
  groups?: number;
}

/**
 * Fills `workspace` like a big company's: 20,000 people, 5,000 channels and 50 user groups by
 * default, named deterministically (`largeUser(i)`, `largeChannel(i)`, `largeGroup(i)`), so
 * `users.list` and `conversations.list` take 100 and 25 pages of 200. Only when asked: the demo
 * workspace stays small. Takes well under a second.
 */
export function seedLargeWorkspace(workspace: Workspace, size: LargeWorkspaceSize = {}): void {
  const users = size.users ?? 20_000;
  const channels = size.channels ?? 5_000;
  const groups = size.groups ?? 50;
  const bot = workspace.bot.userId;
  workspace.addMany({
    users: Array.from({ length: users }, (_, i) => {
      const u = largeUser(i);
      return { id: u.id, name: u.handle, realName: u.realName };
    }),
    channels: Array.from({ length: channels }, (_, i) => {
      const c = largeChannel(i);
      return { id: c.id, name: c.name, isPrivate: c.isPrivate, members: c.isPrivate ? [bot] : [] };
    }),
  });
  for (let i = 0; i < groups; i++) {
    const g = largeGroup(i);
    const members: string[] = [];
    for (let k = i; k < users; k += 100 * Math.max(1, groups)) members.push(largeUser(k).id);
    workspace.userGroups.add({ ...g, users: members });
  }
}
