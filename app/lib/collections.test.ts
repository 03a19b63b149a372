import { describe, expect, it } from "vitest";
import { groupBy, inParallel } from "./collections";

describe("groupBy", () => {
  it("keeps each group in the items' order, the groups in first-seen order", () => {
    expect([...groupBy(["b1", "a1", "b2", "a2", "c1"], (s) => s[0]!).entries()]).toEqual([
      ["b", ["b1", "b2"]],
      ["a", ["a1", "a2"]],
      ["c", ["c1"]],
    ]);
  });
});

describe("inParallel", () => {
  it("does every item once, never more than the limit at once", async () => {
    let running = 0;
    let most = 0;
    const done: number[] = [];
    await inParallel([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setImmediate(resolve));
      done.push(n);
      running--;
    });
    expect(done.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBe(3);
  });

  it("does nothing for no items", async () => {
    let calls = 0;
    await inParallel([], 4, async () => void calls++);
    expect(calls).toBe(0);
  });
});
