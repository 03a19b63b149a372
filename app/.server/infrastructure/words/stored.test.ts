import { describe, expect, it, vi } from "vitest";
import { inLocale } from "../http/display-zone";
import { englishOf, sayIn, words } from "./said";
import { storedSentences } from "./stored";

// Issue 43: English Jumbe stored is read back into the message that wrote it, and said again in
// the reader's language with the same inputs, each input of its kind.

describe("said: days and months", () => {
  it("says a calendar day and a month in each language, the English as the billing pages always wrote it", () => {
    const said = words("app_notice_invoice_due_body", { month: { month: "2026-11" }, day: { day: "2026-12-01" } });
    expect(englishOf(said)).toBe(
      "Your November 2026 invoice is due by 1 December 2026. Pay it on the Billing page by M-Pesa, card or bank transfer.",
    );
    expect(sayIn("sw", said)).toBe(
      "Ankara yako ya Novemba 2026 inapaswa kulipwa kufikia 1 Desemba 2026. Ilipe kwenye ukurasa wa Malipo na ankara kwa M-Pesa, kadi au uhamisho wa benki.",
    );
    expect(sayIn("fr", said)).toBe(
      "Votre facture de novembre 2026 est à régler avant le 1er décembre 2026. Réglez-la sur la page Facturation par M-Pesa, carte ou virement bancaire.",
    );
  });

  it("cannot say a day or month that is not one: the caller shows the stored English", () => {
    expect(sayIn("sw", words("app_notice_invoice_overdue_body", { day: { day: "1 December" } }))).toBeUndefined();
    expect(sayIn("sw", words("app_notice_invoice_paid_from_wallet_body", { month: { month: "2026-13-01" } }))).toBeUndefined();
  });
});

describe("stored sentences", () => {
  const methods = ["app_notice_method_mpesa", "app_notice_method_card", "app_notice_method_bank"] as const;
  const sentences = storedSentences([
    ["app_notice_invoice_issued_title", { number: "data", amount: "kes" }],
    ["app_notice_invoice_due_body", { month: "month", day: "day" }],
    ["app_notice_payment_received_body", { method: methods, via: "data" }],
    ["app_notice_outcome_sent", { count: "count" }],
    ["app_notice_invoice_overdue_undated_body"],
  ]);

  it("reads a text once: the same text again is answered without trying the patterns (decision 176)", () => {
    const english = englishOf(words("app_notice_outcome_sent", { count: 12 }));
    const first = sentences.read(english);
    expect(first).toEqual(["app_notice_outcome_sent", { count: 12 }]);
    expect(sentences.read("Not a sentence Jumbe stores")).toBeUndefined();
    const exec = vi.spyOn(RegExp.prototype, "exec");
    try {
      expect(sentences.read(english)).toEqual(first);
      expect(sentences.read("Not a sentence Jumbe stores")).toBeUndefined();
      expect(sentences.say(english, "sw")).toBe(sayIn("sw", first));
      expect(exec).not.toHaveBeenCalled();
    } finally {
      exec.mockRestore();
    }
  });

  it("reads each kind of input back from the English and says the sentence in the reader's language", () => {
    const english = englishOf(words("app_notice_invoice_issued_title", { number: "INV-2026-000123", amount: { kes: 123_456_750 } }));
    expect(english).toBe("Invoice INV-2026-000123: KES 1,234,567.50");
    expect(sentences.read(english)).toEqual([
      "app_notice_invoice_issued_title",
      { number: "INV-2026-000123", amount: { kes: 123_456_750 } },
    ]);
    expect(sentences.say(english, "sw")).toBe("Ankara INV-2026-000123: KES\u00a01,234,567.50");
    expect(sentences.say(english, "fr")).toBe("Facture INV-2026-000123 : 1\u202f234\u202f567,50\u00a0KES");

    const due = "Your November 2026 invoice is due by 1 December 2026. Pay it on the Billing page by M-Pesa, card or bank transfer.";
    expect(sentences.read(due)).toEqual(["app_notice_invoice_due_body", { month: { month: "2026-11" }, day: { day: "2026-12-01" } }]);

    // A payment method is one of its messages, said in the reader's words; who confirmed it is data here.
    expect(sentences.say("Paid by card. Confirmed by Paystack.", "fr")).toBe("Payé par carte. Confirmé par Paystack.");
    expect(sentences.say("Paid by bank transfer. Confirmed by bank reconciliation.", "sw")).toBe(
      "Yamelipwa kwa uhamisho wa benki. Yamethibitishwa na bank reconciliation.",
    );
    // A count is grouped as the reader's language groups it.
    expect(sentences.say("12,345 sent", "fr")).toBe("envoyés : 12\u202f345");
    // A fixed sentence.
    expect(
      sentences.say("Pay it on the Billing page by M-Pesa, card or bank transfer. If you disagree with it, dispute it there.", "sw"),
    ).toBe("Ilipe kwenye ukurasa wa Malipo na ankara kwa M-Pesa, kadi au uhamisho wa benki. Kama huikubali, iwekee pingamizi hapo.");
  });

  it("leaves a text no sentence matches, or whose inputs are not of their kind, to be shown as stored", () => {
    expect(sentences.read("Something else entirely")).toBeUndefined();
    // "cheque" is no payment method's English; "twelve" is no count; "KES 12" is no amount as Jumbe writes one.
    expect(sentences.read("Paid by cheque. Confirmed by Paystack.")).toBeUndefined();
    expect(sentences.read("twelve sent")).toBeUndefined();
    expect(sentences.read("Invoice INV-1: KES 12")).toBeUndefined();
    expect(
      sentences.read("Your Nov 2026 invoice is due by 1 December 2026. Pay it on the Billing page by M-Pesa, card or bank transfer."),
    ).toBeUndefined();
  });

  it("reads a sentence nested in another, itself read back", () => {
    const reasons = storedSentences([["app_notice_invoice_overdue_title", { number: "data", amount: "kes" }]]);
    const outer = storedSentences([["app_notice_template_returned_body", { reason: reasons }]]);
    const stored = englishOf(
      words("app_notice_template_returned_body", {
        reason: words("app_notice_invoice_overdue_title", { number: "INV-9", amount: { kes: 500 } }),
      }),
    );
    expect(stored).toBe("Jumbe's reason: Invoice INV-9 is overdue: KES 5.00. Edit it and submit it again.");
    expect(outer.say(stored, "sw")).toBe(
      inLocale("sw", () =>
        sayIn(
          "sw",
          words("app_notice_template_returned_body", {
            reason: words("app_notice_invoice_overdue_title", { number: "INV-9", amount: { kes: 500 } }),
          }),
        ),
      ),
    );
    expect(outer.say(stored, "sw")).toContain("Muda wa kulipa ankara INV-9 umepita: KES\u00a05.00");
  });
});
