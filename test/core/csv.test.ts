import { describe, expect, it } from "vitest";
import { type CsvColumn, toCsv } from "../../src/core/csv.ts";
import { countsCsv } from "../../src/tools/reports/report-table.ts";

type Row = { name: string | null; n: number };
const columns: CsvColumn<Row>[] = [
  ["name", (r) => r.name],
  ["n", (r) => r.n],
];

describe("toCsv, the one CSV writer", () => {
  it("writes RFC 4180: a header row, CRLF, quotes only where needed, null as an empty cell", () => {
    expect(toCsv(columns, [])).toBe("name,n\r\n");
    expect(
      toCsv(columns, [
        { name: "a\nb", n: 1 },
        { name: "c\rd", n: 2 },
        { name: "e,f", n: 3 },
      ]),
    ).toBe('name,n\r\n"a\nb",1\r\n"c\rd",2\r\n"e,f",3\r\n');
    expect(
      toCsv(columns, [
        { name: 'say "hi", then\nleave', n: 1 },
        { name: null, n: -2 },
      ]),
    ).toBe('name,n\r\n"say ""hi"", then\nleave",1\r\n,-2\r\n');
  });

  it("prefixes text that starts like a formula with an apostrophe; numbers stay numbers", () => {
    const cells = ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx", "＝1", "a=b"];
    const csv = toCsv(
      columns,
      cells.map((name) => ({ name, n: -1 })),
    );
    expect(csv.split("\r\n").slice(1, -1)).toEqual([
      "'=1+1,-1",
      "'+1,-1",
      "'-1,-1",
      "'@SUM(A1),-1",
      "'\tx,-1",
      `"'\rx",-1`,
      "'＝1,-1",
      "a=b,-1",
    ]);
  });

  it("is what the ticket report's CSV file is made with", () => {
    expect(countsCsv("assignee", [{ key: '=HYPERLINK("http://evil")', count: 2 }])).toBe(
      'assignee,tickets\r\n"\'=HYPERLINK(""http://evil"")",2\r\n',
    );
  });
});
