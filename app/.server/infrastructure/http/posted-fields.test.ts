import { describe, expect, test } from "vitest";
import * as z from "zod/mini";
import { postedAll, postedFirst, postedTexts, readPosted } from "./posted-fields";

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

describe("fields read as the browser posted them", () => {
  test("the first value of a field, cut to its length, and every value of a repeated one in order", () => {
    const schema = z.object({ first: postedFirst(3), none: postedFirst(3), all: postedAll(2), one: postedAll(5), empty: postedAll(5) });
    const form = post([
      ["first", "abcdef"],
      ["first", "x"],
      ["all", "1"],
      ["all", ""],
      ["all", "3"],
      ["one", ""],
    ]);
    expect(readPosted(form, schema)).toEqual({ first: "abc", none: "", all: ["1", ""], one: [""], empty: [] });
  });
});
