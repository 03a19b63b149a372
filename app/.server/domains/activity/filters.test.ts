import { describe, expect, it } from "vitest";
import { filterQuery, nairobiDate, nairobiMidnight, parseActivityFilter } from "./filters";
import { csvCell, csvRow } from "./csv";

const NOW = new Date("2026-11-22T10:00:00Z"); // 13:00 in Nairobi
const parse = (query: string) => parseActivityFilter(new URLSearchParams(query), NOW);

describe("activity filters", () => {
  it("defaults to 7days: today and the six days before it, from Nairobi midnight", () => {
    const result = parse("");
    expect(result).toMatchObject({ ok: true, filter: { range: "7days", type: undefined, status: undefined } });
    if (!result.ok) throw new Error();
    expect(result.filter.start.toISOString()).toBe("2026-11-15T21:00:00.000Z"); // 16 Nov 00:00 EAT
    expect(result.filter.end.getTime()).toBeGreaterThan(NOW.getTime());
  });

  it("reads 24hours as the last 24 hours and 90days from Nairobi midnight 89 days ago", () => {
    const day = parse("range=24hours");
    const quarter = parse("range=90days");
    if (!day.ok || !quarter.ok) throw new Error();
    expect(day.filter.start.toISOString()).toBe("2026-11-21T10:00:00.000Z");
    expect(quarter.filter.start.toISOString()).toBe("2026-08-24T21:00:00.000Z"); // 25 Aug 00:00 EAT
  });

  it("reads startDate and endDate as whole Nairobi days, or as timestamps with an offset", () => {
    const days = parse("startDate=2026-11-01&endDate=2026-11-21");
    if (!days.ok) throw new Error();
    expect(days.filter.start.toISOString()).toBe("2026-10-31T21:00:00.000Z");
    expect(days.filter.end.toISOString()).toBe("2026-11-21T21:00:00.000Z"); // all of the 21st, exclusive end
    const stamps = parse("startDate=2026-11-01T08:00:00%2B03:00&endDate=2026-11-01T09:30:00Z&type=login&status=error");
    expect(stamps).toMatchObject({ ok: true, filter: { type: "login", status: "error", range: "custom" } });
    if (!stamps.ok) throw new Error();
    expect(stamps.filter.start.toISOString()).toBe("2026-11-01T05:00:00.000Z");
  });

  it("explains bad input instead of guessing", () => {
    expect(parse("type=payments")).toEqual({ ok: false, message: 'Unknown activity type "payments".' });
    expect(parse("status=ok")).toEqual({ ok: false, message: 'Unknown status "ok".' });
    expect(parse("range=year")).toEqual({ ok: false, message: 'Unknown date range "year".' });
    expect(parse("startDate=2026-02-30")).toMatchObject({ ok: false, message: expect.stringContaining("startDate must be an ISO date") });
    expect(parse("startDate=2026-11-01T08:00:00")).toMatchObject({ ok: false }); // no offset
    expect(parse("startDate=2026-11-21&endDate=2026-11-20")).toEqual({ ok: false, message: "startDate must be before endDate." });
    expect(parse("type=all&status=all")).toMatchObject({ ok: true });
  });

  it("refuses names every object has as a date range, type or status", () => {
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"]) {
      expect(parse(`range=${name}`)).toEqual({ ok: false, message: `Unknown date range "${name}".` });
      expect(parse(`type=${name}`)).toEqual({ ok: false, message: `Unknown activity type "${name}".` });
      expect(parse(`status=${name}`)).toEqual({ ok: false, message: `Unknown status "${name}".` });
    }
  });

  it("refuses dates outside 2000 to 2100 (PostgreSQL has no year 0, JavaScript writes year 10000 as +010000)", () => {
    const message = {
      start: "startDate must be between 2000-01-01 and 2100-12-31.",
      end: "endDate must be between 2000-01-01 and 2100-12-31.",
    };
    expect(parse("startDate=0000-01-01")).toEqual({ ok: false, message: message.start });
    expect(parse("startDate=1999-12-31")).toEqual({ ok: false, message: message.start });
    expect(parse("endDate=9999-12-31")).toEqual({ ok: false, message: message.end });
    expect(parse("endDate=2101-01-01T00:00:00Z")).toEqual({ ok: false, message: message.end });
    expect(parse("startDate=0001-01-01T00:00:00Z&endDate=2026-11-01")).toEqual({ ok: false, message: message.start });
    expect(parse("startDate=2000-01-01&endDate=2100-12-31")).toMatchObject({ ok: true, filter: { range: "custom" } });
    // Only an end: the period starts at the beginning of the log.
    expect(parse("endDate=2026-11-21")).toMatchObject({ ok: true });
  });

  it("turns a filter back into its query, defaults left out", () => {
    const r = parse("type=security&range=30days");
    if (!r.ok) throw new Error();
    expect(filterQuery(r.filter).toString()).toBe("type=security&range=30days");
    const d = parse("range=7days");
    if (!d.ok) throw new Error();
    expect(filterQuery(d.filter).toString()).toBe("");
  });

  it("knows the Nairobi date of an instant", () => {
    expect(nairobiDate(new Date("2026-11-21T20:59:59Z"))).toBe("2026-11-21");
    expect(nairobiDate(new Date("2026-11-21T21:00:00Z"))).toBe("2026-11-22");
    expect(nairobiMidnight("2026-01-01").toISOString()).toBe("2025-12-31T21:00:00.000Z");
  });
});

describe("CSV cells", () => {
  it("quotes every cell and doubles quotes, keeping commas and line breaks inside the cell", () => {
    expect(csvRow(["a", 'say "habari"', "one, two", "line\nbreak", null, 42])).toBe(
      '"a","say ""habari""","one, two","line\nbreak","","42"\r\n',
    );
  });

  it("defuses cells a spreadsheet would run as formulas", () => {
    for (const formula of ['=HYPERLINK("http://x")', "+254700", "-2+3", "@SUM(A1)", "\tcmd", "\rcmd"])
      expect(csvCell(formula)).toMatch(/^"'/);
    expect(csvCell("Habari 😀")).toBe('"Habari 😀"');
  });
});
