import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { StateFile } from "./state-file";

describe("a sandbox's state file", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "state-file-"));
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    rmSync(dir, { recursive: true, force: true });
  });

  it("saves a change after 200 ms, then waits fifty times as long as the last save took", () => {
    const file = path.join(dir, "hubspot.json");
    let state = { version: 1, items: [1] };
    // The clock says each save took 100 ms (two readings a save: before and after).
    let reading = 0;
    const clock = () => (reading++ % 2 === 0 ? 0 : 100);
    const saved = new StateFile(file, "test", () => state, clock);

    saved.changed();
    vi.advanceTimersByTime(199);
    expect(() => readFileSync(file, "utf8")).toThrow();
    vi.advanceTimersByTime(1);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ version: 1, items: [1] });
    expect(saved.delayMs).toBe(5000);

    state = { version: 1, items: [1, 2] };
    saved.changed();
    vi.advanceTimersByTime(4999);
    expect(JSON.parse(readFileSync(file, "utf8")).items).toEqual([1]);
    vi.advanceTimersByTime(1);
    expect(JSON.parse(readFileSync(file, "utf8")).items).toEqual([1, 2]);
  });

  it("writes what is pending when closed, whatever the wait", () => {
    const file = path.join(dir, "shopify.json");
    const saved = new StateFile(file, "test", () => ({ version: 1, shops: ["duka"] }));
    saved.changed();
    saved.close();
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ version: 1, shops: ["duka"] });
  });
});
