import { describe, expect, it } from "vitest";
import { inLocale } from "~/.server/infrastructure/http/display-zone";
import { sayIn, words } from "~/.server/infrastructure/words/said";
import { failureInWords } from "./failure-words";
import { failedInShortWords } from "./outcome";

// Issue 74: a template campaign's failure 131047 said "only a template can reach them", advice that
// means nothing for a template. Meta's "Re-engagement message" on a template says WhatsApp would not
// let that template start a conversation with someone silent for 24 hours (decision 114).

describe("131047 on a template", () => {
  it("says what Meta meant, in English, Swahili and French, where campaign failures are shown", () => {
    const said = (locale: "en" | "sw" | "fr") =>
      inLocale(locale, () => failureInWords(131047, "Re-engagement message", { template: true }));
    expect(said("en")).toBe(
      "WhatsApp turned it away as a re-engagement message (131047): the person has not written to this number for 24 hours, and WhatsApp did not accept this template to start the conversation. Check in WhatsApp Manager that the template is approved and active, then send it again later.",
    );
    expect(said("sw")).toMatch(/^WhatsApp iliukataa kama ujumbe wa kumrudia mteja \(131047\): mtu huyu hajaandikia nambari hii kwa saa 24/);
    expect(said("fr")).toMatch(
      /^WhatsApp l'a refusé comme message de relance \(131047\) : la personne n'a pas écrit à ce numéro depuis 24 heures/,
    );
    for (const locale of ["en", "sw", "fr"] as const) {
      expect(said(locale)).not.toBe(inLocale(locale, () => failureInWords(131047, "Re-engagement message")));
    }
    expect(said("en")).not.toContain("only a template");
  });

  it("keeps the window's words for a free-form message, where a template is the way", () => {
    expect(failureInWords(131047, "Re-engagement message")).toBe(
      "More than 24 hours since the person last wrote: only a template can reach them.",
    );
    expect(failureInWords(131026, null, { template: true })).toBe(failureInWords(131026, null));
  });

  it("counts it in a campaign's outcome as a refused re-engagement message, not as outside the window", () => {
    expect(failedInShortWords(131047, "Re-engagement message")).toBe("app_notice_failure_reengagement");
    expect(sayIn("en", words(failedInShortWords(131047, null)))).toBe("refused by WhatsApp as a re-engagement message");
    expect(sayIn("sw", words(failedInShortWords(131047, null)))).toBe("zimekataliwa na WhatsApp kama ujumbe wa kumrudia mteja");
    expect(failedInShortWords(470, null)).toBe("app_notice_failure_window");
  });
});
