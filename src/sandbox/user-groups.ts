/** A user group as the emulator keeps it; `usergroups.list` answers with Slack's full shape. */
export interface SandboxUserGroup {
  id: string;
  team_id: string;
  /** What people write after `@`. */
  handle: string;
  name: string;
  description: string;
  users: string[];
  created_by: string;
  date_create: number;
  date_update: number;
  /** Seconds since the epoch when disabled; 0 while enabled. */
  date_delete: number;
}

export interface NewUserGroup {
  id: string;
  handle: string;
  name?: string;
  description?: string;
  users?: string[];
  createdBy?: string;
}

/** The workspace's user groups (`@netops`): enabled ones are listed, disabled ones only when asked. */
export class SandboxUserGroups {
  private readonly groups = new Map<string, SandboxUserGroup>();
  private readonly teamId: string;
  private readonly seconds: () => number;

  constructor(teamId: string, seconds: () => number) {
    this.teamId = teamId;
    this.seconds = seconds;
  }

  add(input: NewUserGroup): SandboxUserGroup {
    const now = this.seconds();
    const group: SandboxUserGroup = {
      id: input.id,
      team_id: this.teamId,
      handle: input.handle,
      name: input.name ?? input.handle,
      description: input.description ?? "",
      users: [...(input.users ?? [])],
      created_by: input.createdBy ?? "",
      date_create: now,
      date_update: now,
      date_delete: 0,
    };
    this.groups.set(group.id, group);
    return structuredClone(group);
  }

  /** Changes a group's handle, name, members or enabled state; undefined for an unknown id. */
  update(
    id: string,
    patch: Partial<Pick<SandboxUserGroup, "handle" | "name" | "description" | "users">> & {
      disabled?: boolean;
    },
  ): SandboxUserGroup | undefined {
    const group = this.groups.get(id);
    if (!group) return undefined;
    const { disabled, ...fields } = patch;
    Object.assign(group, structuredClone(fields), { date_update: this.seconds() });
    if (disabled !== undefined) group.date_delete = disabled ? this.seconds() : 0;
    return structuredClone(group);
  }

  get(id: string): SandboxUserGroup | undefined {
    const group = this.groups.get(id);
    return group ? structuredClone(group) : undefined;
  }

  list({ includeDisabled = false }: { includeDisabled?: boolean } = {}): SandboxUserGroup[] {
    return [...this.groups.values()]
      .filter((g) => includeDisabled || g.date_delete === 0)
      .map((g) => structuredClone(g));
  }
}
