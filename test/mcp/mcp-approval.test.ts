import { describe, expect, it } from "vitest";
import { approvalFor, globMatch, isIncluded } from "../../src/mcp/mcp-tools.ts";

const readOnly = { readOnlyHint: true };
const destructive = { readOnlyHint: false, destructiveHint: true };

describe("MCP approval rules", () => {
  it("by_annotations: only a trusted server's readOnlyHint skips approval", () => {
    const trusted = { approval: "by_annotations" as const, trusted: true };
    const untrusted = { approval: "by_annotations" as const, trusted: false };
    expect(approvalFor(trusted, {}, readOnly)).toBe("never");
    expect(approvalFor(trusted, {}, destructive)).toBe("always");
    expect(approvalFor(trusted, {}, undefined)).toBe("always");
    expect(approvalFor(trusted, {}, { readOnlyHint: true, destructiveHint: true })).toBe("always");
    expect(approvalFor(untrusted, {}, readOnly)).toBe("always");
  });

  it("never/always as configured, per-tool overrides win", () => {
    expect(approvalFor({ approval: "never", trusted: false }, {}, destructive)).toBe("never");
    expect(approvalFor({ approval: "always", trusted: true }, {}, readOnly)).toBe("always");
    expect(approvalFor({ approval: "never", trusted: true }, { approval: "always" }, readOnly)).toBe(
      "always",
    );
    expect(
      approvalFor({ approval: "always", trusted: false }, { approval: "by_annotations" }, readOnly),
    ).toBe("always");
  });

  it("include/exclude globs over the tool's own name", () => {
    expect(globMatch("*", "anything")).toBe(true);
    expect(globMatch("read_*", "read_text_file")).toBe(true);
    expect(globMatch("read_*", "write_file")).toBe(false);
    expect(globMatch("get-su?", "get-sum")).toBe(true);
    expect(globMatch("a.b", "axb")).toBe(false);
    const config = { include: ["read_*", "list_*"], exclude: ["*media*"] };
    expect(isIncluded("read_text_file", config)).toBe(true);
    expect(isIncluded("read_media_file", config)).toBe(false);
    expect(isIncluded("write_file", config)).toBe(false);
  });
});
