import { describe, expect, it } from "vitest";
import { formatLsn, parseLsn, replicaStatus, withReadScope } from "./replica";
import { readDb, db } from "./client";

describe("WAL positions (decision 163)", () => {
  it("reads PostgreSQL's LSN text as bytes and writes it back", () => {
    expect(parseLsn("0/0")).toBe(0n);
    expect(parseLsn("16/B374D848")).toBe((0x16n << 32n) + 0xb374d848n);
    expect(parseLsn("16/b374d848")).toBe(parseLsn("16/B374D848"));
    expect(formatLsn(parseLsn("16/B374D848")!)).toBe("16/B374D848");
    // Positions compare as numbers, not as text: 9/... is before 10/...
    expect(parseLsn("9/FFFFFFFF")! < parseLsn("A/0")!).toBe(true);
    for (const bad of [null, undefined, "", "16", "16/", "/1", "G/1", "123456789/1", "1/2/3", " 1/2"]) expect(parseLsn(bad)).toBeNull();
  });

  it("without a replica, says nothing and a read scope changes nothing", async () => {
    expect(replicaStatus()).toBeNull();
    await expect(withReadScope(5n, async () => (await readDb()) === db())).rejects.toThrow(/Database not opened/);
  });
});
