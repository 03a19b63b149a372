import { describe, expect, it } from "vitest";
import { columnIndex, columnName, formatA1, parseA1 } from "./a1";

const sheets = new Set(["Sheet1", "Kenya customers"]);
const isSheet = (t: string) => sheets.has(t);

describe("A1 notation", () => {
  it("converts column letters both ways", () => {
    expect([columnIndex("A"), columnIndex("z"), columnIndex("AA"), columnIndex("AZ")]).toEqual([0, 25, 26, 51]);
    expect([columnName(0), columnName(25), columnName(26), columnName(701)]).toEqual(["A", "Z", "AA", "ZZ"]);
  });

  it("reads ranges with and without a sheet", () => {
    expect(parseA1("Sheet1!A1:C10", isSheet)).toEqual({ sheetTitle: "Sheet1", startRow: 0, endRow: 10, startCol: 0, endCol: 3 });
    expect(parseA1("'Kenya customers'!A:C", isSheet)).toEqual({
      sheetTitle: "Kenya customers",
      startRow: 0,
      endRow: undefined,
      startCol: 0,
      endCol: 3,
    });
    expect(parseA1("Sheet1!2:5", isSheet)).toEqual({ sheetTitle: "Sheet1", startRow: 1, endRow: 5, startCol: 0, endCol: undefined });
    expect(parseA1("B2", isSheet)).toEqual({ startRow: 1, endRow: 2, startCol: 1, endCol: 2 });
    expect(parseA1("Sheet1", isSheet)).toEqual({ sheetTitle: "Sheet1", startRow: 0, startCol: 0 });
    expect(parseA1("A2:C", isSheet)).toEqual({ startRow: 1, endRow: undefined, startCol: 0, endCol: 3 });
  });

  it("refuses what is not A1 notation", () => {
    for (const bad of ["", "A1:B2:C3", "Sheet1!A0", "'unclosed!A1"]) expect(parseA1(bad, isSheet), bad).toBeNull();
  });

  it("writes ranges, quoting titles that need it", () => {
    expect(formatA1("Sheet1", 3, 0, 4, 3)).toBe("Sheet1!A4:C4");
    expect(formatA1("Kenya customers", 0, 1, 2, 2)).toBe("'Kenya customers'!B1:B2");
  });
});
