import { describe, expect, it } from "vitest";
import { formatDay, formatKes, formatNumber, formatWhen, nairobiDate, nairobiMidnight } from "./dates";

describe("dates and numbers, in Nairobi", () => {
  it("shows a moment in Nairobi time whatever the server's zone", () => {
    // 21:30 UTC on 21 November is 00:30 on 22 November in Nairobi.
    expect(formatWhen("2026-11-21T21:30:00Z")).toBe("22 Nov 2026, 00:30");
    expect(formatDay(new Date("2026-11-21T21:30:00Z"))).toBe("22 Nov 2026");
    expect(nairobiDate(new Date("2026-11-21T21:30:00Z"))).toBe("2026-11-22");
    expect(nairobiMidnight("2026-11-22").toISOString()).toBe("2026-11-21T21:00:00.000Z");
  });

  it("groups counts and shows shillings the Kenyan way", () => {
    expect(formatNumber(1234567)).toBe("1,234,567");
    expect(formatKes(1250)).toBe("Ksh\u00a01,250.00"); // a no-break space keeps "Ksh" with its figure
  });
});
