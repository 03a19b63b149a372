import { describe, expect, it } from "vitest";
import { decodeKeysetCursor, encodeKeysetCursor, isTimestamp, isUuid } from "./keyset";

describe("keyset cursors", () => {
  it("reads back what it wrote, and nothing the database would refuse", () => {
    const at = "2026-11-23 13:32:06.123456+00";
    const id = "0b7f6a2e-5c1d-4e8f-9a3b-2c4d6e8f0a1b";
    expect(decodeKeysetCursor(encodeKeysetCursor(at, id))).toEqual({ at, id });
    for (const bad of [
      encodeKeysetCursor("2026-02-30 10:00:00+00", id),
      encodeKeysetCursor("0000-01-01 00:00:00+00", id),
      encodeKeysetCursor("2026-13-01 00:00:00+00", id),
      encodeKeysetCursor("yesterday", id),
      encodeKeysetCursor(at, "-".repeat(36)),
      encodeKeysetCursor(at, "f".repeat(36)),
      encodeKeysetCursor(at, `${id}|x`),
      "%%%",
      "",
      "a".repeat(201),
    ])
      expect(decodeKeysetCursor(bad)).toBeUndefined();
    expect(isTimestamp("2024-02-29 00:00:00+03")).toBe(true);
    expect(isTimestamp("2025-02-29 00:00:00+03")).toBe(false);
    expect(isUuid(id.toUpperCase())).toBe(true);
  });
});
