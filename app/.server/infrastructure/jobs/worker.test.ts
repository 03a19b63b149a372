import { describe, expect, it } from "vitest";
import { outageBackoffMs } from "./worker";

// Issue 9: while PostgreSQL is down, job workers wait longer after each failure (no hot loop, no log
// flood) and never longer than 15 s; the database coming back wakes them at once.
describe("outageBackoffMs", () => {
  it("doubles from half a second and stops at 15 s", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 20, 1000].map(outageBackoffMs)).toEqual([500, 1000, 2000, 4000, 8000, 15_000, 15_000, 15_000, 15_000]);
  });
});
