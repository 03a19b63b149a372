import { describe, expect, it } from "vitest";
import { smsEncoding, smsParts } from "./sms-parts";

describe("smsParts", () => {
  it("GSM-7: 160 in one part, then 153 a part", () => {
    expect(smsParts("")).toEqual({ encoding: "GSM-7", units: 0, parts: 1, perPart: 160, remaining: 160 });
    expect(smsParts("a".repeat(160))).toEqual({ encoding: "GSM-7", units: 160, parts: 1, perPart: 160, remaining: 0 });
    expect(smsParts("a".repeat(161))).toEqual({ encoding: "GSM-7", units: 161, parts: 2, perPart: 153, remaining: 145 });
    expect(smsParts("a".repeat(306)).parts).toBe(2);
    expect(smsParts("a".repeat(307)).parts).toBe(3);
  });

  it("counts the extension characters twice", () => {
    expect(smsParts("{}[]~^|\\€")).toMatchObject({ encoding: "GSM-7", units: 18, parts: 1 });
    expect(smsParts("€".repeat(80))).toMatchObject({ units: 160, parts: 1 });
    expect(smsParts(`${"a".repeat(159)}€`)).toMatchObject({ units: 161, parts: 2 });
  });

  it("keeps plain Swahili and English, and the French accents GSM-7 has (é è à ù), in GSM-7", () => {
    expect(smsEncoding("Habari! Agizo lako #42 limepokelewa. Asante.")).toBe("GSM-7");
    expect(smsEncoding("Votre commande a été livrée à Duka: 250 KES")).toBe("GSM-7");
  });

  it("UCS-2 for one character outside GSM-7 (curly quotes, ç, emoji): 70, then 67 a part", () => {
    expect(smsEncoding("It’s ready")).toBe("UCS-2");
    expect(smsEncoding("français")).toBe("UCS-2");
    expect(smsParts(`${"a".repeat(69)}😀`)).toMatchObject({ encoding: "UCS-2", units: 71, parts: 2, perPart: 67 });
    expect(smsParts(`${"a".repeat(68)}😀`)).toMatchObject({ encoding: "UCS-2", units: 70, parts: 1, remaining: 0 });
    expect(smsParts("ü".repeat(10) + "ê")).toMatchObject({ encoding: "UCS-2", units: 11, parts: 1 });
    expect(smsParts("ê".repeat(134)).parts).toBe(2);
    expect(smsParts("ê".repeat(135)).parts).toBe(3);
  });
});
