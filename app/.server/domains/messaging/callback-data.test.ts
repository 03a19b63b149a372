import { describe, expect, it } from "vitest";
import { callbackDataOf, messageOfCallback } from "./callback-data";

const id = "0b6f3c1e-7d2a-4a8e-9c1b-2f4d5e6a7b8c";

describe("a send's callback data", () => {
  it("carries the message's key and reads back exactly, microseconds and offset kept", () => {
    for (const createdAt of ["2026-12-02 13:08:00.123456+00", "2026-12-02 16:08:00+03", "2026-01-31 23:59:59.9-05:30"])
      expect(messageOfCallback(callbackDataOf({ id, createdAt }))).toEqual({ id, createdAt });
  });

  it("reads an older send's id alone, in any case", () => {
    expect(messageOfCallback(id.toUpperCase())).toEqual({ id, createdAt: null });
  });

  it("refuses what Jumbe did not write", () => {
    for (const data of [
      undefined,
      42,
      "",
      "job-42",
      `${id} yesterday`,
      `${id} 2026-12-02 13:08:00`,
      `${id}  2026-12-02 13:08:00+00`,
      "x".repeat(512),
    ])
      expect(messageOfCallback(data)).toBeNull();
  });
});
