import { describe, expect, it } from "vitest";
import { countParts } from "./parts";

describe("countParts", () => {
  it("counts GSM-7 in septets: 160 in one part, 153 a part beyond", () => {
    expect(countParts("a".repeat(160))).toEqual({ encoding: "GSM-7", units: 160, parts: 1 });
    expect(countParts("a".repeat(161))).toEqual({ encoding: "GSM-7", units: 161, parts: 2 });
    expect(countParts("a".repeat(306))).toEqual({ encoding: "GSM-7", units: 306, parts: 2 });
    expect(countParts("a".repeat(307))).toEqual({ encoding: "GSM-7", units: 307, parts: 3 });
  });

  it("counts an extension character twice", () => {
    expect(countParts("€".repeat(80))).toEqual({ encoding: "GSM-7", units: 160, parts: 1 });
    expect(countParts(`${"a".repeat(159)}[`)).toEqual({ encoding: "GSM-7", units: 161, parts: 2 });
  });

  it("switches the whole message to UCS-2 for one character outside GSM-7: 70, then 67 a part", () => {
    expect(countParts("Asante sana! Karibu tena.").encoding).toBe("GSM-7");
    expect(countParts(`${"a".repeat(69)}’`)).toEqual({ encoding: "UCS-2", units: 70, parts: 1 });
    expect(countParts(`${"a".repeat(70)}’`)).toEqual({ encoding: "UCS-2", units: 71, parts: 2 });
    expect(countParts(`${"a".repeat(132)}😀`)).toEqual({ encoding: "UCS-2", units: 134, parts: 2 });
    expect(countParts(`${"a".repeat(133)}😀`)).toEqual({ encoding: "UCS-2", units: 135, parts: 3 });
  });
});
