import { describe, expect, it } from "vitest";
import { collapseRepeats, type ActivityRow } from "./recent-activity";

const row = (id: number, action: string, details: string | null = null, status = "success"): ActivityRow => ({
  id,
  action,
  details,
  status,
  type: "login",
  at: new Date(Date.UTC(2026, 10, 22, 10, 0, 60 - id)).toISOString(),
});

describe("collapseRepeats", () => {
  it("turns identical events in a row into one entry with a count, newest and oldest time", () => {
    const rows = [
      row(1, "Signed in", "Browser session"),
      row(2, "Signed in", "Browser session"),
      row(3, "Signed in", "Browser session"),
      row(4, "Profile updated"),
    ];
    const groups = collapseRepeats(rows, 5);
    expect(groups.map((g) => [g.action, g.count])).toEqual([
      ["Signed in", 3],
      ["Profile updated", 1],
    ]);
    expect(groups[0]!.at).toBe(rows[0]!.at);
    expect(groups[0]!.firstAt).toBe(rows[2]!.at);
  });

  it("keeps events apart when details or status differ, or when something happened in between", () => {
    const rows = [
      row(1, "Signed in", "Browser session"),
      row(2, "Signed in", "Remembered for 30 days"),
      row(3, "Sign-in failed", null, "error"),
      row(4, "Signed in", "Remembered for 30 days"),
    ];
    expect(collapseRepeats(rows, 5).map((g) => g.count)).toEqual([1, 1, 1, 1]);
  });

  it("returns at most `limit` entries, counting every repeat of the last one it keeps", () => {
    const rows = [row(1, "A"), row(2, "B"), row(3, "B"), row(4, "C"), row(5, "D")];
    expect(collapseRepeats(rows, 2).map((g) => [g.action, g.count])).toEqual([
      ["A", 1],
      ["B", 2],
    ]);
  });
});

describe("collapseRepeats at the end of what was read", () => {
  it("says 'at least' when the repeats may go on beyond the rows read", () => {
    const rows = [row(1, "A"), row(2, "B"), row(3, "B"), row(4, "B")];
    // Four rows read of a longer log: the run of B may continue in the rows not read.
    const groups = collapseRepeats(rows, 5, { more: true });
    expect(groups.map((g) => [g.action, g.count, g.atLeast])).toEqual([
      ["A", 1, false],
      ["B", 3, true],
    ]);
  });

  it("gives exact counts when every row was read, or when a later distinct row closed the run", () => {
    const rows = [row(1, "A"), row(2, "B"), row(3, "B"), row(4, "C")];
    expect(collapseRepeats(rows, 2, { more: true }).map((g) => [g.count, g.atLeast])).toEqual([
      [1, false],
      [2, false],
    ]);
    expect(collapseRepeats(rows.slice(0, 3), 5, { more: false }).map((g) => [g.count, g.atLeast])).toEqual([
      [1, false],
      [2, false],
    ]);
  });
});
