import type { Database } from "../../store/db.ts";
import type { Tool } from "../define-tool.ts";
import { recall } from "./recall.ts";
import { remember } from "./remember.ts";

/** `remember` and `recall` over Postgres `memories`. */
export function createMemoryTools({ db }: { db: Database }): Tool[] {
  return [remember({ db }), recall({ db })];
}
