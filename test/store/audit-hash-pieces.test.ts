import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sha256Hex, toStorableJson } from "../../src/core/canonical-json.ts";
import { type AuditRow, auditRowHash, hashPieces } from "../../src/store/audit-chain.ts";
import { AUDIT_ACTIONS } from "../../src/store/schema.ts";

/** What `hermes_audit_append` (drizzle/0010) hashes, joined the way it joins the pieces. */
function joinedHash(row: AuditRow): string {
  const p = hashPieces(row);
  const json =
    p.before_created_at +
    row.createdAt +
    p.before_id +
    String(row.id) +
    p.before_prev_hash +
    row.prevHash +
    p.after_prev_hash;
  return sha256Hex(row.prevHash + json);
}

const text = fc.option(fc.string({ unit: "binary", maxLength: 40 }), { nil: null });
const row = fc.record({
  id: fc.integer({ min: 1, max: 2 ** 53 - 1 }),
  createdAt: fc
    .date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true })
    .map((d) => `${d.toISOString().slice(0, 23)}123Z`),
  action: fc.constantFrom(...AUDIT_ACTIONS),
  tool: fc.string({ unit: "binary", minLength: 1, maxLength: 20 }),
  userId: text,
  teamId: text,
  channelId: text,
  threadTs: text,
  runId: text,
  toolCallId: text,
  approvalId: text,
  actorId: text,
  args: fc.option(fc.jsonValue().map(toStorableJson), { nil: null }),
  argsSha256: fc.option(fc.stringMatching(/^[0-9a-f]{64}$/), { nil: null }),
  resultSummary: text,
  error: text,
  durationMs: fc.option(fc.integer({ min: 0, max: 2 ** 31 - 1 }), { nil: null }),
  prevHash: fc.stringMatching(/^[0-9a-f]{64}$/),
});

describe("hashPieces: the chain's hash joined in Postgres is auditRowHash", () => {
  it("for every row: keys, Unicode, quotes, nulls and nested args", () => {
    fc.assert(
      fc.property(row, (r) => {
        const full: AuditRow = { ...r, hash: "" };
        expect(joinedHash(full)).toBe(auditRowHash(full));
      }),
      { numRuns: 500 },
    );
  });

  it("a row whose text holds the pieces' own markers", () => {
    const tricky: AuditRow = {
      id: 7,
      createdAt: "2026-12-02T19:06:47.868574Z",
      action: "tool.executed",
      tool: '","created_at":"',
      userId: '"id":1,"prev_hash":"',
      teamId: null,
      channelId: "}",
      threadTs: "{",
      runId: "\\",
      toolCallId: "\u2028",
      approvalId: null,
      actorId: null,
      args: { created_at: "x", id: 1, prev_hash: "y", "": [null, { z: '"' }] },
      argsSha256: null,
      resultSummary: "😀 你好",
      error: null,
      durationMs: 0,
      prevHash: "0".repeat(64),
      hash: "",
    };
    expect(joinedHash(tricky)).toBe(auditRowHash(tricky));
  });
});
