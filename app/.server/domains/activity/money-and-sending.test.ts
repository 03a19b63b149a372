import { describe, expect, it } from "vitest";
import { inLocale } from "~/.server/infrastructure/http/display-zone";
import { englishOf, sayIn, words } from "~/.server/infrastructure/words/said";
import { outcomeInWords, outcomeWords, type CampaignOutcome } from "~/.server/domains/campaigns/outcome";
import { failureInWords } from "~/.server/domains/campaigns/failure-words";
import { detailsInWords } from "./words";
import { billingTypeInWords, categoryInWords } from "./stored-inputs";

// Issue 43: the billing, campaign and template details written from inputs keep their English
// exactly, and are said in the reader's language, their inner words too (a pause reason, an
// outcome, a payment method, a billing type, a template's category).

const sw = (text: string) => inLocale("sw", () => detailsInWords(text));
const fr = (text: string) => inLocale("fr", () => detailsInWords(text));

describe("billing details", () => {
  it("keep the English the writers stored before, in English whatever the request's language", () => {
    const written = inLocale("sw", () => [
      englishOf(
        words("app_activity_detail_plan_from", { plan: "Starter", type: billingTypeInWords("prepaid"), day: { day: "2026-12-01" } }),
      ),
      englishOf(words("app_activity_detail_plan_now", { plan: "Growth", type: billingTypeInWords("postpaid") })),
      englishOf(
        words("app_activity_detail_wallet_alerts_both", {
          low: { kes: 50_000 },
          amount: { kes: 100_000 },
          phone: "254712345678",
          below: { kes: 20_000 },
        }),
      ),
      englishOf(words("app_activity_detail_wallet_alerts_none")),
      englishOf(
        words("app_activity_detail_payment_received_receipt", {
          amount: { kes: 123_450 },
          method: words("app_notice_method_c2b"),
          receipt: "TGH12ABC",
        }),
      ),
      englishOf(
        words("app_activity_detail_invoice_issued", { number: "INV-2026-000012", month: { month: "2026-11" }, amount: { kes: 2_029_536 } }),
      ),
      englishOf(words("app_activity_detail_bank_transfer_started", { amount: { kes: 1_500_000 }, reference: "JMB-BT-ABC234" })),
    ]);
    expect(written).toEqual([
      "Starter (prepaid) from 1 December 2026.",
      "Now on Growth (postpaid).",
      "Alert below KES 500.00; an M-Pesa prompt of KES 1,000.00 to 254712345678 below KES 200.00",
      "No low-balance alert; no automatic prompt",
      "KES 1,234.50 by M-Pesa paybill (TGH12ABC).",
      "INV-2026-000012 for November 2026: KES 20,295.36.",
      "KES 15,000.00, reference JMB-BT-ABC234.",
    ]);
    for (const text of written) expect(detailsInWords(text)).toBe(text);
  });

  it("are said in Swahili and French with the amounts, days and billing types of the language", () => {
    expect(sw("Starter (prepaid) from 1 December 2026.")).toMatch(/^Starter \(lipa kabla\) kuanzia 1 Desemba 2026\.$/);
    expect(fr("Now on Growth (postpaid).")).toBe("Forfait en vigueur : Growth (postpayé).");
    expect(sw("KES 1,234.50 by M-Pesa paybill (TGH12ABC).")).toMatch(/^Malipo ya KES\s?1,234\.50 kupitia M-Pesa Paybill \(TGH12ABC\)\.$/);
    expect(sw("KES 1,000.00 by card: Declined by the bank")).toMatch(/^Malipo ya KES\s?1,000\.00 kupitia kadi: Declined by the bank$/);
    expect(sw("INV-2026-000012 for November 2026: KES 20,295.36.")).toMatch(/^Ankara INV-2026-000012 ya Novemba 2026: KES\s?20,295\.36\.$/);
  });
});

describe("campaign details", () => {
  it("say Jumbe's pause reason inside the line in the reader's language, and leave a reason it does not know as stored", () => {
    const stored = "Maji Kitengela: The wallet ran out of money. It resumes by itself after a top-up covers the next messages.";
    expect(detailsInWords(stored)).toBe(stored);
    expect(sw(stored)).toBe(
      "Maji Kitengela: Pochi imeishiwa pesa. Itaendelea yenyewe baada ya kuongeza salio la kutosha kulipia jumbe zinazofuata.",
    );
    expect(
      fr(
        "Promo: Meta paused the template water_notice because people reported or ignored it. Resume once Meta lifts the pause (usually within hours), or cancel.",
      ),
    ).toMatch(/^Promo : Meta a mis en pause le modèle water_notice /);
    expect(sw("Maji: No WhatsApp number is connected. Connect one on the WhatsApp page first.")).not.toContain("No WhatsApp number");
    expect(sw("Maji: the organisation was suspended.")).toBe("Maji: shirika limesimamishwa.");
    expect(sw("Maji: something Jumbe never wrote")).toBe("Maji: something Jumbe never wrote");
  });

  it("say a finished campaign's outcome as its notification does, every reason in words", () => {
    const outcome: CampaignOutcome = {
      sent: 1200,
      failed: 4,
      failedBy: [
        { words: "app_notice_failure_unreachable", count: 2 },
        { words: "app_notice_failure_too_fast", count: 1 },
        { words: "app_notice_failure_marketing_limit", count: 1 },
      ],
      leftOut: 4,
    };
    for (const shape of [
      outcome,
      { ...outcome, leftOut: 0 },
      { sent: 45, failed: 0, failedBy: [], leftOut: 3 },
      { sent: 45, failed: 0, failedBy: [], leftOut: 0 },
    ]) {
      const stored = englishOf(words("app_activity_detail_campaign_finished", { name: "Maji Rongai", outcome: outcomeWords(shape) }));
      expect(stored).toBe(`Maji Rongai: ${outcomeInWords(shape)} when it finished; failures WhatsApp reports later show on its page.`);
      // The outcome in the words of the "finished" notification in Swahili.
      expect(sw(stored)).toBe(
        `Maji Rongai: ${sayIn("sw", outcomeWords(shape))} wakati wa kukamilika; jumbe ambazo WhatsApp itaripoti baadaye kuwa zimeshindwa zitaonekana kwenye ukurasa wake.`,
      );
    }
  });

  it("keep the approval line's English and count in the reader's language", () => {
    const stored = englishOf(
      words("app_activity_detail_awaiting_approval_other", { name: "Nakuru water rationing", count: 1500, threshold: 250 }),
    );
    expect(stored).toBe(
      "Nakuru water rationing: 1,500 recipients, more than the approval threshold of 250. An owner or admin other than its author must approve it.",
    );
    expect(fr(stored)).toMatch(/^Nakuru water rationing : 1\s500 destinataires, au-delà du seuil d'approbation de 250\./);
  });
});

describe("template details", () => {
  it("say Meta's categories as the template pages do, keeping Meta's codes in English", () => {
    const stored = englishOf(
      words("app_activity_detail_template_category_changed", {
        name: "water_notice",
        from: categoryInWords("UTILITY"),
        to: categoryInWords("MARKETING"),
      }),
    );
    expect(stored).toBe("water_notice: UTILITY to MARKETING");
    expect(sw(stored)).toBe("water_notice: Miamala hadi Masoko");
    expect(sw("water_notice: ? to MARKETING")).toBe("water_notice: ? hadi Masoko");
    expect(sw("promo: Please change the header to text")).toBe("promo: Please change the header to text");
  });
});

describe("a message a suspension failed", () => {
  it("says why in the reader's language, not as Jumbe's code", () => {
    expect(failureInWords(null, "organization_suspended")).toBe(
      "The organisation was suspended, and the message waited too long: it was not sent.",
    );
    expect(inLocale("sw", () => failureInWords(null, "organization_suspended"))).toBe(
      "Shirika lilikuwa limesimamishwa, na ujumbe ulisubiri muda mrefu mno: haukutumwa.",
    );
  });
});
