import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUserStore, type UserStore } from "../../src/store/user-store.ts";
import { DRIVERS, dbErrorText, execSql, openTestStore, type TestStore } from "../helpers/pg.ts";

describe.each(DRIVERS)("user store on %s", (kind) => {
  let store: TestStore;
  let usersStore: UserStore;
  beforeAll(async () => {
    store = await openTestStore(kind);
    usersStore = createUserStore(store.handle);
  });
  afterAll(() => store?.cleanup());

  it("an unknown user has no row", async () => {
    expect(await usersStore.get("U0NOBODY")).toBeUndefined();
  });

  it("upsert creates with defaults, then changes only the fields given", async () => {
    expect(await usersStore.upsert({ id: "U0ANA", displayName: "Ana" })).toEqual({
      level: "user",
      displayName: "Ana",
      toolAllow: null,
      toolDeny: null,
    });
    await usersStore.upsert({ id: "U0ANA", toolDeny: ["delete_ticket", "send_message"] });
    await usersStore.upsert({ id: "U0ANA", toolAllow: ["get_ticket"] });
    expect(await usersStore.get("U0ANA")).toEqual({
      level: "user",
      displayName: "Ana",
      toolAllow: ["get_ticket"],
      toolDeny: ["delete_ticket", "send_message"],
    });
    await usersStore.upsert({ id: "U0ANA", toolAllow: null, displayName: "Ana Li 李" });
    expect(await usersStore.get("U0ANA")).toMatchObject({ toolAllow: null, displayName: "Ana Li 李" });
  });

  it("setLevel creates or updates, and bumps updated_at", async () => {
    expect(await usersStore.setLevel("U0BOB", "viewer")).toMatchObject({ level: "viewer" });
    const [before] = await execSql<{ updated_at: string }>(
      store.handle.db,
      "SELECT updated_at::text AS updated_at FROM users WHERE id = 'U0BOB'",
    );
    await new Promise((r) => setTimeout(r, 5));
    expect(await usersStore.setLevel("U0BOB", "admin")).toMatchObject({ level: "admin" });
    const [after] = await execSql<{ updated_at: string }>(
      store.handle.db,
      "SELECT updated_at::text AS updated_at FROM users WHERE id = 'U0BOB'",
    );
    expect(after?.updated_at).not.toBe(before?.updated_at);
  });

  it("the database refuses a level that does not exist", async () => {
    const text = await dbErrorText(usersStore.setLevel("U0EVE", "root" as "admin"));
    expect(text).toContain("users_level_check");
  });
});
