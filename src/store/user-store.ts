import type { Database } from "./db.ts";
import { eq, sql } from "./drizzle.ts";
import { prepared } from "./prepared.ts";
import { type UserLevel, users } from "./schema.ts";
import { withStorageErrors } from "./storage-errors.ts";

/** What policy needs about a Slack user. `toolAllow` null = no allow-list; `toolDeny` always applies. */
export interface UserRecord {
  level: UserLevel;
  toolAllow: string[] | null;
  toolDeny: string[] | null;
  displayName: string | null;
}

/** Fields to set; an absent field keeps its stored value (or the column default for a new user). */
export interface UserUpdate {
  id: string;
  level?: UserLevel;
  displayName?: string | null;
  toolAllow?: string[] | null;
  toolDeny?: string[] | null;
}

export interface UserStore {
  /** Undefined for a user Hermes has no row for (policy treats them as `user`). */
  get(userId: string): Promise<UserRecord | undefined>;
  upsert(update: UserUpdate): Promise<UserRecord>;
  setLevel(userId: string, level: UserLevel): Promise<UserRecord>;
}

const columns = {
  level: users.level,
  toolAllow: users.toolAllow,
  toolDeny: users.toolDeny,
  displayName: users.displayName,
};

export function createUserStore({ db }: { db: Database }): UserStore {
  // Read on every turn (the requester's level and tool lists): built once (prepared.ts).
  const userById = prepared(() =>
    db
      .select(columns)
      .from(users)
      .where(eq(users.id, sql.placeholder("userId"))),
  );
  const upsert = async ({ id, level, displayName, toolAllow, toolDeny }: UserUpdate): Promise<UserRecord> => {
    const set: Partial<typeof users.$inferInsert> = {};
    if (level !== undefined) set.level = level;
    if (displayName !== undefined) set.displayName = displayName;
    if (toolAllow !== undefined) set.toolAllow = toolAllow;
    if (toolDeny !== undefined) set.toolDeny = toolDeny;
    const [row] = await db
      .insert(users)
      .values({ id, ...set })
      .onConflictDoUpdate({ target: users.id, set: { ...set, updatedAt: sql`now()` } })
      .returning(columns);
    if (!row) throw new Error("users: upsert returned no row");
    return row;
  };

  return withStorageErrors(
    {
      async get(userId) {
        const [row] = await userById().execute({ userId });
        return row;
      },
      upsert,
      setLevel: (userId, level) => upsert({ id: userId, level }),
    },
    "users",
  );
}
