import { LEGACY_TENANT, type TenantKey } from "../core/tenant.ts";
import type { Database } from "../store/db.ts";
import { sql } from "../store/drizzle.ts";
import { tickets } from "../store/schema.ts";

/**
 * A few tickets for the sandbox's demo workspace, so search and reports have something to show. Only
 * into an empty table; they belong to `tenant` (`core/tenant.ts`: the team the turns run in).
 */
export async function seedDemoTickets(db: Database, tenant: TenantKey = LEGACY_TENANT): Promise<number> {
  const [row] = (await db.execute<{ n: number }>(sql`select count(*)::int as n from tickets`)).rows;
  if ((row?.n ?? 0) > 0) return 0;
  const seed = [
    {
      title: "VPN drops every 10 minutes",
      description: "Since Monday the office VPN disconnects every 10 minutes for the whole ops team.",
      priority: "high",
      status: "open",
      assignee: "U0WANGLEI",
      createdBy: "U0USER1",
    },
    {
      title: "三楼打印机卡纸",
      description: "三楼东侧的打印机又卡纸了，需要更换搓纸轮。",
      priority: "medium",
      status: "in_progress",
      assignee: "U0USER1",
      createdBy: "U0WANGLEI",
    },
    {
      title: "Grant Grafana access to the new SRE",
      description: "Read-only access to the prod dashboards.",
      priority: "low",
      status: "open",
      assignee: null,
      createdBy: "U0ADMIN",
    },
    {
      title: "Renew the TLS certificate of status.acme.example",
      description: "Expires in 9 days.",
      priority: "urgent",
      status: "open",
      assignee: "U0ADMIN",
      createdBy: "U0ADMIN",
    },
    {
      title: "Laptop battery swelling",
      description: "Replaced under warranty.",
      priority: "medium",
      status: "closed",
      assignee: "U0WANGLEI",
      createdBy: "U0USER1",
    },
  ] as const;
  await db.insert(tickets).values(seed.map((t) => ({ ...t, teamId: tenant })));
  return seed.length;
}
