import { describe, expect, it } from "vitest";
import { matchesFilter, searchPage, searchRequestFrom, SearchInputError } from "./search";
import type { CrmRecord } from "./state";

const record = (id: string, properties: Record<string, string>): CrmRecord => ({
  id,
  properties,
  createdAt: 1_700_000_000_000,
  updatedAt: 1_700_000_000_000,
});
const wanjiku = record("1", { email: "Wanjiku.Kamau@example.com", firstname: "Wanjiku", phone: "+254712345678" });
const brian = record("2", { email: "brian@example.com", firstname: "Brian" });

describe("search filters", () => {
  it("EQ is case-insensitive; NEQ and the property tests", () => {
    expect(matchesFilter(wanjiku, { propertyName: "email", operator: "EQ", value: "wanjiku.kamau@EXAMPLE.com" })).toBe(true);
    expect(matchesFilter(brian, { propertyName: "email", operator: "NEQ", value: "wanjiku.kamau@example.com" })).toBe(true);
    expect(matchesFilter(wanjiku, { propertyName: "phone", operator: "HAS_PROPERTY" })).toBe(true);
    expect(matchesFilter(brian, { propertyName: "phone", operator: "HAS_PROPERTY" })).toBe(false);
    expect(matchesFilter(brian, { propertyName: "phone", operator: "NOT_HAS_PROPERTY" })).toBe(true);
    expect(matchesFilter(brian, { propertyName: "hs_object_id", operator: "IN", values: ["2", "3"] })).toBe(true);
  });

  it("CONTAINS_TOKEN matches whole tokens, with * as a wildcard", () => {
    expect(matchesFilter(wanjiku, { propertyName: "email", operator: "CONTAINS_TOKEN", value: "kamau" })).toBe(true);
    expect(matchesFilter(wanjiku, { propertyName: "email", operator: "CONTAINS_TOKEN", value: "kam" })).toBe(false);
    expect(matchesFilter(wanjiku, { propertyName: "email", operator: "CONTAINS_TOKEN", value: "kam*" })).toBe(true);
    expect(matchesFilter(wanjiku, { propertyName: "email", operator: "CONTAINS_TOKEN", value: "*@example.com" })).toBe(true);
  });

  it("groups OR, filters in a group AND", () => {
    const request = searchRequestFrom({
      filterGroups: [
        { filters: [{ propertyName: "firstname", operator: "EQ", value: "brian" }] },
        {
          filters: [
            { propertyName: "phone", operator: "HAS_PROPERTY" },
            { propertyName: "firstname", operator: "EQ", value: "Nobody" },
          ],
        },
      ],
    });
    expect(searchPage([wanjiku, brian], request).results.map((r) => r.id)).toEqual(["2"]);
  });

  it("pages with after until there is no next cursor", () => {
    const many = Array.from({ length: 5 }, (_, i) => record(String(i + 10), { email: `c${i}@example.com` }));
    const first = searchPage(many, searchRequestFrom({ limit: 2 }));
    expect(first).toMatchObject({ total: 5, after: "2" });
    const last = searchPage(many, searchRequestFrom({ limit: 2, after: "4" }));
    expect(last.results.map((r) => r.id)).toEqual(["14"]);
    expect(last.after).toBeUndefined();
  });

  it("refuses what HubSpot refuses", () => {
    expect(() => searchRequestFrom({ filterGroups: [{ filters: [{ propertyName: "email", operator: "LIKE", value: "x" }] }] })).toThrow(
      SearchInputError,
    );
    expect(() => searchRequestFrom({ limit: 201 })).toThrow(SearchInputError);
    expect(() => searchRequestFrom({ filterGroups: Array.from({ length: 6 }, () => ({ filters: [] })) })).toThrow(SearchInputError);
    expect(() => searchRequestFrom({ filterGroups: [{ filters: [{ propertyName: "email", operator: "EQ" }] }] })).toThrow(SearchInputError);
  });
});
