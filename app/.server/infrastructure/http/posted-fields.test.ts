import { describe, expect, test } from "vitest";
import * as z from "zod/mini";
import { postedTexts, readPosted } from "./posted-fields";

function post(entries: [string, string][]) {
  const form = new FormData();
  for (const [name, value] of entries) form.append(name, value);
  return form;
}

describe("posted fields", () => {
  test("each named field is its text, and an empty, missing or repeated one is empty", () => {
    const form = post([
      ["intent", "remove"],
      ["id", ""],
      ["tag", "a"],
      ["tag", "b"],
    ]);
    expect(postedTexts(form, ["intent", "id", "tag", "confirm"])).toEqual({ intent: "remove", id: "", tag: "", confirm: "" });
  });

  test("a post that does not fit the schema reads as null", () => {
    const schema = z.object({ intent: z.literal("save") });
    expect(readPosted(post([["intent", "save"]]), schema)).toEqual({ intent: "save" });
    expect(readPosted(post([["intent", "drop"]]), schema)).toBeNull();
  });
});
