import { describe, expect, it } from "vitest";
import { inLocale } from "~/.server/infrastructure/http/display-zone";
import { walletEntryWords } from "./wallet-words";

const STORED = [
  "1 message sent, KES 0.80",
  "1200 messages sent, KES 960.00",
  "3 messages not sent: KES 2.40 released",
  "1 message failed after sending: KES 0.80 refunded",
  "M-Pesa payment SGH12K9LMN",
  "card payment",
  "Invoice INV-2026-000123 paid by bank transfer",
  "Invoice INV-2026-000124 paid from the wallet",
  "KES 2,320.00 of prepaid credit is now money on account (credit note CRN-2026-000007 for INV-2026-000031)",
  "KES 9,560.00 of money on account is now prepaid credit (tax invoice INV-2026-000040)",
  "Credit note CRN-2026-000008 for INV-2026-000032: paid back to the payer",
  "Wallet top-up",
  "Goodwill credit after the outage of 3 March",
];

describe("a wallet entry's stored description in the reader's language", () => {
  it("reads in English exactly as stored", () => {
    for (const text of STORED) expect(inLocale("en", () => walletEntryWords(text))).toBe(text);
  });

  it("says the billing code's sentences in Swahili and French, amounts written for the language, and leaves an administrator's words alone", () => {
    expect(STORED.map((text) => inLocale("sw", () => walletEntryWords(text)))).toEqual([
      "Ujumbe 1 umetumwa, KES\u00a00.80",
      "Jumbe 1200 zimetumwa, KES\u00a0960.00",
      "Jumbe 3 hazikutumwa: KES\u00a02.40 zimeachiliwa",
      "Ujumbe 1 umeshindwa baada ya kutumwa: KES\u00a00.80 zimerejeshwa",
      "Malipo ya M-Pesa SGH12K9LMN",
      "Malipo ya kadi",
      "Ankara INV-2026-000123 imelipwa kwa uhamisho wa benki",
      "Ankara INV-2026-000124 imelipwa kutoka kwenye pochi",
      "KES\u00a02,320.00 za salio la malipo ya awali sasa ni pesa iliyo kwenye akaunti (hati ya punguzo CRN-2026-000007 ya INV-2026-000031)",
      "KES\u00a09,560.00 za pesa iliyo kwenye akaunti sasa ni salio la malipo ya awali (ankara ya kodi INV-2026-000040)",
      "Hati ya punguzo CRN-2026-000008 ya INV-2026-000032: inarudishwa kwa aliyelipa",
      "Uongezaji wa salio la pochi",
      "Goodwill credit after the outage of 3 March",
    ]);
    expect(inLocale("fr", () => walletEntryWords("3 messages not sent: KES 2.40 released"))).toBe(
      "3 messages non envoyés : 2,40\u00a0KES libérés",
    );
  });
});
