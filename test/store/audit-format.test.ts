import { describe, expect, it } from "vitest";
import type { AuditRow } from "../../src/store/audit-chain.ts";
import { auditRowsToCsv, auditRowsToTable } from "../../src/store/audit-format.ts";

const row: AuditRow = {
  id: 7,
  createdAt: "2025-03-01T09:30:00.123456Z",
  action: "tool.executed",
  tool: "create_ticket",
  userId: "U0ALICE",
  teamId: "T01",
  channelId: "C01",
  threadTs: "1700000000.000100",
  runId: "run_1",
  toolCallId: "call_1",
  approvalId: null,
  actorId: null,
  args: { title: 'VPN "down", again\nsecond line' },
  argsSha256: "a".repeat(64),
  resultSummary: '=HYPERLINK("http://evil")',
  error: null,
  durationMs: 42,
  prevHash: "0".repeat(64),
  hash: "b".repeat(64),
};

describe("audit formats", () => {
  it("CSV has every column, RFC 4180 quoting, and defuses formulas", () => {
    const [header, line, end] = auditRowsToCsv([row]).split("\r\n");
    expect(header?.split(",")).toHaveLength(19);
    expect(header?.startsWith("id,created_at,action,tool,user_id")).toBe(true);
    expect(line).toContain('"{""title"":""VPN \\""down\\"", again\\nsecond line""}"');
    expect(line).toContain(`"'=HYPERLINK(""http://evil"")"`);
    expect(line?.startsWith("7,2025-03-01T09:30:00.123456Z,tool.executed,create_ticket,U0ALICE,,")).toBe(
      true,
    );
    expect(end).toBe("");
  });

  it("the table is aligned, one line per row, long cells cut", () => {
    const long = { ...row, id: 8, resultSummary: "x".repeat(200), error: "boom\nline 2" };
    const lines = auditRowsToTable([long, row]).trimEnd().split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^ID\s+TIME \(UTC\)\s+ACTION\s+TOOL/);
    expect(lines[2]).toContain("2025-03-01 09:30:00  executed");
    expect(lines[2]).toContain("error: boom line 2");
    expect(lines.every((l) => l.length < 200)).toBe(true);
    expect(auditRowsToTable([])).toBe("(no audit rows match)\n");
  });
});
