import { describe, expect, it } from "vitest";
import { inLocale } from "~/.server/infrastructure/http/display-zone";
import { invoiceWords } from "./invoice-words";

describe("an invoice's stored descriptions in the reader's language", () => {
  const stored = [
    "Wallet top-up",
    "Payment on account by bank transfer",
    "Growth plan, October 2026",
    "Messages beyond the 10,000 included (12,345 sent)",
    "Credit for the duplicate charge of 3 March",
  ];
  it("reads in English exactly as stored", () => {
    for (const text of stored) expect(inLocale("en", () => invoiceWords(text))).toBe(text);
  });

  it("writes Jumbe's own words in Swahili and French, numbers and months by the language, and leaves other text alone", () => {
    expect(stored.map((text) => inLocale("sw", () => invoiceWords(text)))).toEqual([
      "Uongezaji wa salio la pochi",
      "Malipo ya awali kwenye akaunti kwa uhamisho wa benki",
      "Mpango wa Growth, Oktoba 2026",
      "Jumbe zaidi ya 10,000 zilizojumuishwa (12,345 zimetumwa)",
      "Credit for the duplicate charge of 3 March",
    ]);
    expect(stored.map((text) => inLocale("fr", () => invoiceWords(text)))).toEqual([
      "Recharge du portefeuille",
      "Paiement sur compte par virement bancaire",
      "Forfait Growth, octobre 2026",
      "Messages au-delà des 10\u202f000 inclus (12\u202f345 envoyés)",
      "Credit for the duplicate charge of 3 March",
    ]);
  });
});
