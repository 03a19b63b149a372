import { describe, expect, it } from "vitest";
import { formatDay, formatNumber, formatWhen, nairobiDate, nairobiMidnight, zonedInstant, zoneWords } from "./dates";

describe("dates and numbers, in Nairobi", () => {
  it("shows a moment in Nairobi time whatever the server's zone", () => {
    // 21:30 UTC on 21 November is 00:30 on 22 November in Nairobi.
    expect(formatWhen("2026-11-21T21:30:00Z")).toBe("22 Nov 2026, 00:30");
    expect(formatDay(new Date("2026-11-21T21:30:00Z"))).toBe("22 Nov 2026");
    expect(nairobiDate(new Date("2026-11-21T21:30:00Z"))).toBe("2026-11-22");
    expect(nairobiMidnight("2026-11-22").toISOString()).toBe("2026-11-21T21:00:00.000Z");
  });

  it("groups counts the Kenyan way (amounts: formatKes in lib/invoice)", () => {
    expect(formatNumber(1234567)).toBe("1,234,567");
  });
});

describe("the display zone", () => {
  it("turns a wall-clock date and time in a zone into the instant, daylight saving included", () => {
    expect(zonedInstant("2026-11-30", "09:30", "Africa/Nairobi")?.toISOString()).toBe("2026-11-30T06:30:00.000Z");
    expect(zonedInstant("2026-11-30", "09:30", "Africa/Lagos")?.toISOString()).toBe("2026-11-30T08:30:00.000Z");
    expect(zonedInstant("2026-11-30", "09:30", "UTC")?.toISOString()).toBe("2026-11-30T09:30:00.000Z");
    // Cairo keeps summer time (UTC+3) in July, UTC+2 in winter.
    expect(zonedInstant("2026-07-15", "12:00", "Africa/Cairo")?.toISOString()).toBe("2026-07-15T09:00:00.000Z");
    expect(zonedInstant("2026-01-15", "12:00", "Africa/Cairo")?.toISOString()).toBe("2026-01-15T10:00:00.000Z");
    expect(zonedInstant("2026-13-01", "09:30", "Africa/Nairobi")).toBeUndefined();
    expect(zonedInstant("2026-11-30", "9:30", "Africa/Nairobi")).toBeUndefined();
  });

  it("shows dates in the zone asked for, Nairobi by default, and names it", () => {
    expect(formatWhen("2026-11-20T10:00:00.000Z")).toBe("20 Nov 2026, 13:00");
    expect(formatWhen("2026-11-20T10:00:00.000Z", "Africa/Lagos")).toBe("20 Nov 2026, 11:00");
    expect(zoneWords("Africa/Nairobi")).toBe("Nairobi time");
    expect(zoneWords("Africa/Dar_es_Salaam")).toBe("Dar es Salaam time");
    expect(zoneWords("UTC")).toBe("UTC");
  });
});
