import { describe, expect, it } from "vitest";
import { deliveryClean, deliveryFigures, probeFigures, sendTimeline, type Probe } from "./fault-figures";

const probe = (series: string, sentAt: number, status: Probe["status"], retryAfter: string | null = null): Probe => ({
  series,
  sentAt,
  answeredAt: sentAt + 20,
  status,
  retryAfter,
});

describe("probeFigures", () => {
  const window = { killedAt: 1000, restartedAt: 6000 };

  it("counts the answers from the kill until the slowest probe answered 200 again, and how long after the restart that was", () => {
    const figures = probeFigures(
      [
        probe("A page", 900, 200),
        probe("A page", 1100, 503, "5"),
        probe("A page", 3000, 503, "5"),
        probe("A page", 6100, 503, null),
        probe("A page", 7000, 200),
        probe("A media", 1100, 500),
        probe("A media", 5000, "error"),
        probe("A media", 6200, 200),
        probe("B page", 1100, 200),
        probe("B page", 9000, 200),
      ],
      window,
    );
    expect(figures.recoverySeconds).toBe(1.02);
    expect(figures.notRecovered).toEqual([]);
    // Sent from 1000 to 7020: not the 200 before the kill, nor B's after the recovery.
    expect(figures.requests).toBe(8);
    expect(figures.byStatus).toEqual({ "200": 3, "503": 3, "500": 1, error: 1 });
    expect(figures.unavailableWithRetryAfter).toBe(2);
    expect(figures.unavailableWithoutRetryAfter).toBe(1);
    expect(figures.serverErrors).toBe(1);
    expect(figures.bySeries["A media"]).toEqual({ "500": 1, error: 1, "200": 1 });
  });

  it("says 0 s when nothing failed after the restart, and names a series that never answered 200 again", () => {
    expect(probeFigures([probe("A", 1500, 503, "5"), probe("A", 5900, 200)], window).recoverySeconds).toBe(0);
    const stuck = probeFigures(
      [probe("A", 1500, 503, "5"), probe("A", 6500, 200), probe("B", 7000, 200), probe("B", 7100, 503, "5")],
      window,
    );
    expect(stuck.recoverySeconds).toBeNull();
    expect(stuck.notRecovered).toEqual(["B"]);
  });
});

describe("deliveryFigures", () => {
  const finalStatuses = ["read", "failed"];
  const audience = ["+254700000001", "+254700000002", "+254700000003"];

  it("is clean when each person got one message that the database names, final", () => {
    const figures = deliveryFigures({
      audience,
      sandbox: audience.map((p, i) => ({ wamid: `w${i}`, waId: p.slice(1) })),
      stored: audience.map((phone, i) => ({ phone, wamid: `w${i}`, status: "read" })),
      finalStatuses,
    });
    expect(figures.once).toBe(3);
    expect(deliveryClean(figures)).toBe(true);
  });

  it("names the person sent nothing, the one sent twice, a stranger, a row not final and a send no row names", () => {
    const figures = deliveryFigures({
      audience,
      sandbox: [
        { wamid: "w1", waId: "254700000001" },
        { wamid: "w2", waId: "254700000002" },
        { wamid: "w2b", waId: "254700000002" },
        { wamid: "w9", waId: "254700000009" },
      ],
      stored: [
        { phone: "+254700000001", wamid: "w1", status: "read" },
        { phone: "+254700000002", wamid: "w2", status: "sending" },
        { phone: "+254700000003", wamid: null, status: "failed" },
      ],
      finalStatuses,
    });
    expect(figures.lost).toEqual(["254700000003"]);
    expect(figures.twice).toEqual([{ waId: "254700000002", copies: 2 }]);
    expect(figures.strangers).toEqual(["254700000009"]);
    expect(figures.notFinal).toEqual([{ phone: "+254700000002", status: "sending" }]);
    expect(figures.storedUnknownToMeta).toEqual(["+254700000003"]);
    expect(figures.metaUnknownToStore).toEqual(["w2b", "w9"]);
    expect(deliveryClean(figures)).toBe(false);
  });
});

describe("sendTimeline", () => {
  it("tells the send's length, its longest pause and when sending resumed after the restart", () => {
    expect(sendTimeline([1000, 1500, 2000, 9000, 9500], 8000)).toEqual({
      seconds: 8.5,
      longestGap: 7,
      longestGapFrom: 1,
      resumedAfter: 1,
    });
    expect(sendTimeline([1000, 2000], 3000).resumedAfter).toBeNull();
    expect(sendTimeline([], null)).toEqual({ seconds: 0, longestGap: 0, longestGapFrom: 0, resumedAfter: null });
  });
});
