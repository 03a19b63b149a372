import { describe, expect, it } from "vitest";
import { feederMaxAgeMs, readerMaxAgeMs } from "./progress";

const counts = (queued: number, sent: number, failed = 0) => ({ queued, sent, delivered: 0, read: 0, replied: 0, failed });

describe("how often a campaign's figures are counted", () => {
  it("counts a sending campaign each second up to 20,000 messages, a second more for each 20,000 after, at most every 5 s", () => {
    expect(feederMaxAgeMs(null)).toBe(1000);
    expect(feederMaxAgeMs(counts(200, 0))).toBe(1000);
    expect(feederMaxAgeMs(counts(10_000, 10_000))).toBe(1000);
    expect(feederMaxAgeMs(counts(10_000, 10_000, 1))).toBe(2000);
    expect(feederMaxAgeMs(counts(40_000, 59_000, 1_000))).toBe(5000);
    expect(feederMaxAgeMs(counts(900_000, 100_000))).toBe(5000);
  });

  it("lets a reader count a sending campaign once the feeder is 2 s late, a paused one after a second, an ended one after a minute", () => {
    expect(readerMaxAgeMs({ status: "sending", counts: counts(50, 150) })).toBe(3000);
    expect(readerMaxAgeMs({ status: "sending", counts: counts(60_000, 40_000) })).toBe(7000);
    expect(readerMaxAgeMs({ status: "paused", counts: counts(60_000, 40_000) })).toBe(1000);
    // An ended campaign's are counted again as soon as a status marks them out of date (figuresMoved), else after a minute.
    expect(readerMaxAgeMs({ status: "completed", counts: counts(0, 100_000) })).toBe(60_000);
    expect(readerMaxAgeMs({ status: "cancelled", counts: counts(0, 100) })).toBe(60_000);
  });
});
