import { describe, expect, it } from "vitest";
import { inDisplayZone, inLocale } from "~/.server/infrastructure/http/display-zone";
import { formatDay, formatNumber, formatWhen } from "./dates";
import { formatAmount, formatKes, formatQuantity } from "./invoice";
import { longDate } from "./billing-words";
import { unitWords } from "./invoice-words";
import { byCount, dateTimeFormat, intlLocale, numberFormat } from "./intl";

// Issue 43: figures, amounts and dates in the page's language, by Node's ICU, compared character by
// character (French groups with a narrow no-break space, U+202F, and puts a no-break space, U+00A0,
// before the currency).
const NNBSP = "\u202f";
const NBSP = "\u00a0";
const AT = "2026-11-25T14:05:00Z"; // 17:05 in Nairobi

describe("figures, amounts and dates in each language", () => {
  it("keeps English as the spec writes it", () => {
    expect(intlLocale()).toBe("en-KE");
    expect(formatKes(123456750)).toBe("KES 1,234,567.50");
    expect(formatKes(-123450)).toBe("-KES 1,234.50");
    expect(formatAmount(1500000)).toBe("15,000.00");
    expect(formatQuantity(12480)).toBe("12,480");
    expect(formatNumber(1234567)).toBe("1,234,567");
    expect(formatWhen(AT)).toBe("25 Nov 2026, 17:05");
  });

  it("writes Swahili's amounts in Kenya shillings as Kenyans read them", () => {
    inLocale("sw", () => {
      expect(intlLocale()).toBe("sw-KE");
      // Issue 74: the currency is KES in every language, never sw-KE's "Ksh".
      expect(formatKes(123456750)).toBe(`KES${NBSP}1,234,567.50`);
      expect(formatKes(-123450)).toBe(`-KES${NBSP}1,234.50`);
      expect(formatAmount(1500000)).toBe("15,000.00");
      expect(formatNumber(1234567)).toBe("1,234,567");
      expect(
        new Intl.DateTimeFormat(intlLocale(), { dateStyle: "full", timeStyle: "short", timeZone: "Africa/Nairobi" }).format(new Date(AT)),
      ).toBe("Jumatano, 25 Novemba 2026 saa 17:05");
    });
  });

  it("writes French's with narrow no-break spaces, a comma and the code after", () => {
    inLocale("fr", () => {
      expect(intlLocale()).toBe("fr-KE");
      expect(formatKes(123456750)).toBe(`1${NNBSP}234${NNBSP}567,50${NBSP}KES`);
      expect(formatKes(-123450)).toBe(`-1${NNBSP}234,50${NBSP}KES`);
      expect(formatAmount(1500000)).toBe(`15${NNBSP}000,00`);
      expect(formatQuantity(12480)).toBe(`12${NNBSP}480`);
      expect(formatNumber(1234567)).toBe(`1${NNBSP}234${NNBSP}567`);
      expect(formatWhen(AT)).toBe("25 nov. 2026, 17:05");
      expect(formatDay(AT)).toBe("25 nov. 2026");
      expect(inDisplayZone("Africa/Lagos", () => formatWhen(AT))).toBe("25 nov. 2026, 15:05");
    });
  });

  it("writes the first of a month 1er in French, wherever a date has its month in words (issue 74)", () => {
    const first = "2026-11-01T09:00:00Z";
    inLocale("fr", () => {
      expect(longDate("2026-11-01")).toBe("1er novembre 2026");
      expect(longDate("2026-11-02")).toBe("2 novembre 2026");
      expect(longDate("2026-11-21")).toBe("21 novembre 2026");
      expect(formatDay(first)).toBe("1er nov. 2026");
      expect(formatWhen(first)).toBe("1er nov. 2026, 12:00");
      expect(formatDay("2026-11-11T09:00:00Z")).toBe("11 nov. 2026");
    });
    // Other languages keep the figure.
    expect(longDate("2026-11-01")).toBe("1 November 2026");
    inLocale("sw", () => expect(longDate("2026-11-01")).toBe("1 Novemba 2026"));
  });

  it("says an invoice line's unit in the reader's language (issue 74: 'top-up' was shown in English)", () => {
    expect(unitWords("top-up")).toBe("top-up");
    inLocale("sw", () => expect(["top-up", "month", "message"].map(unitWords)).toEqual(["uongezaji", "mwezi", "ujumbe"]));
    inLocale("fr", () => expect(["top-up", "month", "message", "credit"].map(unitWords)).toEqual(["recharge", "mois", "message", "avoir"]));
    expect(unitWords("kg")).toBe("kg");
  });

  it("chooses a wording by the language's plural rule", () => {
    const say = (n: number) =>
      byCount(
        n,
        () => "one",
        () => "other",
      );
    expect([0, 1, 2].map(say)).toEqual(["other", "one", "other"]);
    inLocale("fr", () => expect([0, 1, 2].map(say)).toEqual(["one", "one", "other"]));
    inLocale("sw", () => expect([0, 1, 2].map(say)).toEqual(["other", "one", "other"]));
  });
});

describe("dateTimeFormat and numberFormat", () => {
  it("build one formatter per locale and options, reused by every call, and write as Intl writes", () => {
    const options = { month: "long", year: "numeric", timeZone: "UTC" } as const;
    expect(dateTimeFormat("fr-KE", options)).toBe(dateTimeFormat("fr-KE", { ...options }));
    expect(dateTimeFormat("sw-KE", options)).not.toBe(dateTimeFormat("fr-KE", options));
    expect(dateTimeFormat("fr-KE", options).format(new Date("2026-11-15T00:00:00Z"))).toBe(
      new Intl.DateTimeFormat("fr-KE", options).format(new Date("2026-11-15T00:00:00Z")),
    );
    expect(numberFormat("fr-KE", { maximumFractionDigits: 2 })).toBe(numberFormat("fr-KE", { maximumFractionDigits: 2 }));
    expect(numberFormat("fr-KE", { maximumFractionDigits: 2 })).not.toBe(numberFormat("fr-KE", { maximumFractionDigits: 0 }));
    expect(numberFormat("fr-KE", { maximumFractionDigits: 2 }).format(12.5)).toBe("12,5");
  });
});
