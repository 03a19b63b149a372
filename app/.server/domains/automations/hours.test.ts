import { describe, expect, it } from "vitest";
import { checkSchedule, isOpenAt, nextOpening, parseSchedule, type OpeningRange, type Schedule, type Weekday } from "./hours";

const office: OpeningRange[] = [{ from: "08:00", to: "17:00" }];

function schedule(days: Partial<Record<Weekday, OpeningRange[]>>, extra: Partial<Schedule> = {}): Schedule {
  return {
    timeZone: "Africa/Nairobi",
    days: { 0: [], 1: [], 2: [], 3: [], 4: [], 5: [], 6: [], ...days },
    holidays: [],
    holidayMode: false,
    ...extra,
  };
}

// Nairobi is UTC+3 all year: 2026-12-04 is a Friday.
const nairobi = (local: string) => new Date(`${local}+03:00`);
const paris = (instant: string) => new Date(instant);

describe("open or closed", () => {
  const weekdays = schedule({
    1: office,
    2: office,
    3: office,
    4: office,
    5: [
      { from: "08:00", to: "12:30" },
      { from: "14:00", to: "17:00" },
    ],
  });

  it("follows the day's ranges in the schedule's time zone, from included, to excluded", () => {
    expect(isOpenAt(weekdays, nairobi("2026-12-03T08:00:00"))).toBe(true);
    expect(isOpenAt(weekdays, nairobi("2026-12-03T07:59:59"))).toBe(false);
    expect(isOpenAt(weekdays, nairobi("2026-12-03T16:59:59"))).toBe(true);
    expect(isOpenAt(weekdays, nairobi("2026-12-03T17:00:00"))).toBe(false);
    // 05:30 UTC is 08:30 in Nairobi: open, although it is before 08:00 in UTC.
    expect(isOpenAt(weekdays, new Date("2026-12-03T05:30:00Z"))).toBe(true);
  });

  it("handles several ranges a day, and days with none", () => {
    expect(isOpenAt(weekdays, nairobi("2026-12-04T12:00:00"))).toBe(true);
    expect(isOpenAt(weekdays, nairobi("2026-12-04T13:00:00"))).toBe(false);
    expect(isOpenAt(weekdays, nairobi("2026-12-04T14:00:00"))).toBe(true);
    expect(isOpenAt(weekdays, nairobi("2026-12-05T10:00:00"))).toBe(false); // Saturday
    expect(isOpenAt(weekdays, nairobi("2026-12-06T10:00:00"))).toBe(false); // Sunday
  });

  it("runs a range whose end is not after its start into the next day, as the start day's", () => {
    const bar = schedule({ 5: [{ from: "20:00", to: "02:00" }] });
    expect(isOpenAt(bar, nairobi("2026-12-04T19:59:00"))).toBe(false);
    expect(isOpenAt(bar, nairobi("2026-12-04T20:00:00"))).toBe(true);
    expect(isOpenAt(bar, nairobi("2026-12-04T23:59:59"))).toBe(true);
    expect(isOpenAt(bar, nairobi("2026-12-05T00:00:00"))).toBe(true); // Saturday morning: Friday's range
    expect(isOpenAt(bar, nairobi("2026-12-05T01:59:00"))).toBe(true);
    expect(isOpenAt(bar, nairobi("2026-12-05T02:00:00"))).toBe(false);
    expect(isOpenAt(bar, nairobi("2026-12-05T20:30:00"))).toBe(false); // Saturday evening: no range
    expect(isOpenAt(bar, nairobi("2026-12-04T01:00:00"))).toBe(false); // Friday morning: Thursday had none
  });

  it("reads 24:00 as the end of the day, and a range ending where it starts as 24 hours", () => {
    const late = schedule({ 1: [{ from: "18:00", to: "24:00" }], 3: [{ from: "00:00", to: "00:00" }] });
    expect(isOpenAt(late, nairobi("2026-11-30T23:59:59"))).toBe(true);
    expect(isOpenAt(late, nairobi("2026-12-01T00:00:00"))).toBe(false);
    expect(isOpenAt(late, nairobi("2026-12-02T00:00:00"))).toBe(true);
    expect(isOpenAt(late, nairobi("2026-12-02T23:59:00"))).toBe(true);
    expect(isOpenAt(late, nairobi("2026-12-03T00:00:00"))).toBe(false);
  });

  it("is closed all day on a holiday, also after midnight of the evening before's range", () => {
    const bar = schedule(
      { 4: office, 5: [{ from: "20:00", to: "02:00" }], 6: [{ from: "10:00", to: "14:00" }] },
      { holidays: ["2026-12-05"] },
    );
    expect(isOpenAt(bar, nairobi("2026-12-04T21:00:00"))).toBe(true);
    expect(isOpenAt(bar, nairobi("2026-12-05T01:00:00"))).toBe(false);
    expect(isOpenAt(bar, nairobi("2026-12-05T11:00:00"))).toBe(false);
    expect(isOpenAt(bar, nairobi("2026-12-12T11:00:00"))).toBe(true); // the Saturday after
  });

  it("does not run an overnight range that starts on a holiday, not even after midnight", () => {
    const bar = schedule({ 5: [{ from: "20:00", to: "02:00" }] }, { holidays: ["2026-12-04"] });
    expect(isOpenAt(bar, nairobi("2026-12-04T21:00:00"))).toBe(false);
    expect(isOpenAt(bar, nairobi("2026-12-05T01:00:00"))).toBe(false);
    expect(isOpenAt(bar, nairobi("2026-12-12T01:00:00"))).toBe(true);
  });

  it("is closed whenever holiday mode is on", () => {
    const always = schedule({ 0: [{ from: "00:00", to: "24:00" }], 4: office }, { holidayMode: true });
    expect(isOpenAt(always, nairobi("2026-12-03T10:00:00"))).toBe(false);
    expect(nextOpening(always, nairobi("2026-12-03T10:00:00"))).toBeNull();
  });
});

describe("a zone with daylight saving time (Europe/Paris: 2026-03-29 02:00 → 03:00, 2026-10-25 03:00 → 02:00)", () => {
  it("keeps local opening hours across the change", () => {
    const daily = Object.fromEntries([0, 1, 2, 3, 4, 5, 6].map((day) => [day, [{ from: "09:00", to: "17:00" }]]));
    const hours = schedule(daily, { timeZone: "Europe/Paris" });
    // Saturday before: 09:00 is 08:00 UTC; Monday after: 09:00 is 07:00 UTC.
    expect(isOpenAt(hours, paris("2026-03-28T07:59:00Z"))).toBe(false);
    expect(isOpenAt(hours, paris("2026-03-28T08:00:00Z"))).toBe(true);
    expect(isOpenAt(hours, paris("2026-03-30T07:00:00Z"))).toBe(true);
    expect(isOpenAt(hours, paris("2026-03-30T06:59:00Z"))).toBe(false);
    expect(isOpenAt(hours, paris("2026-03-30T15:00:00Z"))).toBe(false);
    expect(nextOpening(hours, paris("2026-03-28T18:00:00Z"))?.toISOString()).toBe("2026-03-29T07:00:00.000Z");
  });

  it("opens a range that starts in the skipped hour when the clocks have moved on", () => {
    const early = schedule({ 0: [{ from: "02:30", to: "05:00" }] }, { timeZone: "Europe/Paris" });
    expect(isOpenAt(early, paris("2026-03-29T00:59:00Z"))).toBe(false); // 01:59 CET
    expect(isOpenAt(early, paris("2026-03-29T01:00:00Z"))).toBe(true); // 03:00 CEST
    expect(nextOpening(early, paris("2026-03-28T23:00:00Z"))?.toISOString()).toBe("2026-03-29T01:00:00.000Z");
    // A range wholly in the skipped hour never opens that day.
    const skipped = schedule({ 0: [{ from: "02:10", to: "02:50" }] }, { timeZone: "Europe/Paris" });
    expect(nextOpening(skipped, paris("2026-03-28T23:00:00Z"))?.toISOString()).toBe("2026-04-05T00:10:00.000Z");
  });

  it("is open both times a repeated hour comes round", () => {
    const night = schedule({ 0: [{ from: "01:00", to: "02:30" }] }, { timeZone: "Europe/Paris" });
    expect(isOpenAt(night, paris("2026-10-25T00:15:00Z"))).toBe(true); // 02:15 CEST
    expect(isOpenAt(night, paris("2026-10-25T00:45:00Z"))).toBe(false); // 02:45 CEST
    expect(isOpenAt(night, paris("2026-10-25T01:15:00Z"))).toBe(true); // 02:15 CET
    expect(nextOpening(night, paris("2026-10-25T00:45:00Z"))?.toISOString()).toBe("2026-10-25T01:00:00.000Z");
    expect(nextOpening(night, paris("2026-10-24T20:00:00Z"))?.toISOString()).toBe("2026-10-24T23:00:00.000Z");
  });
});

describe("the next opening", () => {
  const weekdays = schedule({ 1: office, 2: office, 3: office, 4: office, 5: office });

  it("is the instant itself when open", () => {
    const at = nairobi("2026-12-03T10:00:00");
    expect(nextOpening(weekdays, at)).toEqual(at);
  });

  it("is later the same day, or the next working day", () => {
    expect(nextOpening(weekdays, nairobi("2026-12-03T06:00:00"))).toEqual(nairobi("2026-12-03T08:00:00"));
    expect(nextOpening(weekdays, nairobi("2026-12-03T17:00:00"))).toEqual(nairobi("2026-12-04T08:00:00"));
  });

  it("skips a weekend and a holiday", () => {
    expect(nextOpening(weekdays, nairobi("2026-12-04T18:30:00"))).toEqual(nairobi("2026-12-07T08:00:00"));
    const withHoliday = { ...weekdays, holidays: ["2026-12-07", "2026-12-25"] };
    expect(nextOpening(withHoliday, nairobi("2026-12-04T18:30:00"))).toEqual(nairobi("2026-12-08T08:00:00"));
    // Jamhuri Day (Saturday 12th) changes nothing; Christmas (Friday 25th) moves Thursday's evening to Monday.
    expect(nextOpening(withHoliday, nairobi("2026-12-24T17:30:00"))).toEqual(nairobi("2026-12-28T08:00:00"));
  });

  it("is a later range's start on the same day", () => {
    const split = schedule({
      4: [
        { from: "08:00", to: "12:00" },
        { from: "14:00", to: "17:00" },
      ],
    });
    expect(nextOpening(split, nairobi("2026-12-03T12:30:00"))).toEqual(nairobi("2026-12-03T14:00:00"));
  });

  it("is null when nothing opens within 14 days", () => {
    expect(nextOpening(schedule({}), nairobi("2026-12-03T10:00:00"))).toBeNull();
    const holidays = Array.from({ length: 20 }, (_, i) => new Date(Date.UTC(2026, 11, 4 + i)).toISOString().slice(0, 10));
    expect(nextOpening({ ...weekdays, holidays }, nairobi("2026-12-03T18:00:00"))).toBeNull();
    // Holidays to the 16th: Thursday 17th 08:00 is 13 days and 14 hours on, still announced; to the 17th, not.
    expect(nextOpening({ ...weekdays, holidays: holidays.slice(0, 13) }, nairobi("2026-12-03T18:00:00"))).toEqual(
      nairobi("2026-12-17T08:00:00"),
    );
    expect(nextOpening({ ...weekdays, holidays: holidays.slice(0, 14) }, nairobi("2026-12-03T18:00:00"))).toBeNull();
  });
});

describe("checking a schedule", () => {
  const valid = {
    timeZone: "Africa/Nairobi",
    days: { "1": [{ from: "8:00", to: "17:00" }], "5": [{ from: "20:00", to: "02:00" }], "6": [{ from: "09:00", to: "12:00" }] },
    holidays: ["2026-12-25", "2026-12-12", "2026-12-25"],
    holidayMode: false,
  };

  it("accepts a good one, writing times HH:MM and holidays sorted, each once", () => {
    const parsed = parseSchedule(valid);
    expect(parsed).toEqual({
      ok: true,
      schedule: {
        timeZone: "Africa/Nairobi",
        days: {
          0: [],
          1: [{ from: "08:00", to: "17:00" }],
          2: [],
          3: [],
          4: [],
          5: [{ from: "20:00", to: "02:00" }],
          6: [{ from: "09:00", to: "12:00" }],
        },
        holidays: ["2026-12-12", "2026-12-25"],
        holidayMode: false,
      },
    });
    expect(checkSchedule(valid)).toEqual([]);
    expect(checkSchedule({ timeZone: "Europe/Paris" })).toEqual([]);
    expect(parseSchedule({ timeZone: " africa/nairobi " })).toMatchObject({ ok: true, schedule: { timeZone: "Africa/Nairobi" } });
  });

  it("refuses an unknown time zone, and offsets that are not zones", () => {
    for (const timeZone of ["Africa/Narobi", "", "+03:00", "EAT+3", 3])
      expect(checkSchedule({ ...valid, timeZone }), String(timeZone)).toEqual([{ code: "unknown_time_zone", field: "timeZone" }]);
  });

  it("refuses badly written times, 24:00 as a start, and days that are not 0 to 6", () => {
    expect(
      checkSchedule({ ...valid, days: { 1: [{ from: "24:00", to: "25:00" }, { from: "9h", to: "10:60" }, { from: "10:00" }], 7: [] } }),
    ).toEqual([
      { code: "invalid_time", field: "from", day: 1, index: 0 },
      { code: "invalid_time", field: "to", day: 1, index: 0 },
      { code: "invalid_time", field: "from", day: 1, index: 1 },
      { code: "invalid_time", field: "to", day: 1, index: 1 },
      { code: "invalid_time", field: "to", day: 1, index: 2 },
      { code: "invalid_day", field: "days" },
    ]);
  });

  it("refuses more than four ranges a day", () => {
    const five = ["06:00", "08:00", "10:00", "12:00", "14:00"].map((from) => ({ from, to: from.replace(":00", ":30") }));
    expect(checkSchedule({ ...valid, days: { 2: five } })).toEqual([{ code: "too_many_ranges", field: "days", day: 2 }]);
    expect(checkSchedule({ ...valid, days: { 2: five.slice(0, 4) } })).toEqual([]);
  });

  it("refuses overlapping ranges in a day, including the night part of the day before's", () => {
    expect(
      checkSchedule({
        ...valid,
        days: {
          1: [
            { from: "08:00", to: "12:00" },
            { from: "11:00", to: "13:00" },
          ],
        },
      }),
    ).toEqual([{ code: "overlap", field: "days", day: 1, index: 1 }]);
    expect(
      checkSchedule({
        ...valid,
        days: {
          1: [
            { from: "08:00", to: "12:00" },
            { from: "12:00", to: "13:00" },
          ],
        },
      }),
    ).toEqual([]);
    expect(
      checkSchedule({
        ...valid,
        days: {
          1: [
            { from: "09:00", to: "17:00" },
            { from: "22:00", to: "23:00" },
            { from: "20:00", to: "03:00" },
          ],
        },
      }),
    ).toEqual([{ code: "overlap", field: "days", day: 1, index: 1 }]);
    // Saturday 20:00–02:00 runs into Sunday, which opens at 01:00.
    expect(checkSchedule({ ...valid, days: { 6: [{ from: "20:00", to: "02:00" }], 0: [{ from: "01:00", to: "05:00" }] } })).toEqual([
      { code: "overlap", field: "days", day: 0, index: 0 },
    ]);
    expect(checkSchedule({ ...valid, days: { 6: [{ from: "20:00", to: "02:00" }], 0: [{ from: "02:00", to: "05:00" }] } })).toEqual([]);
  });

  it("refuses holidays that are not real dates, and more than 100", () => {
    expect(checkSchedule({ ...valid, holidays: ["2026-02-30", "25/12/2026", "2026-12-25", 20261225] })).toEqual([
      { code: "invalid_holiday", field: "holidays", index: 0 },
      { code: "invalid_holiday", field: "holidays", index: 1 },
      { code: "invalid_holiday", field: "holidays", index: 3 },
    ]);
    const many = Array.from({ length: 101 }, (_, i) => new Date(Date.UTC(2027, 0, 1 + i)).toISOString().slice(0, 10));
    expect(checkSchedule({ ...valid, holidays: many })).toEqual([{ code: "too_many_holidays", field: "holidays" }]);
    expect(checkSchedule({ ...valid, holidays: many.slice(0, 100) })).toEqual([]);
  });

  it("refuses what is not a schedule at all", () => {
    expect(checkSchedule(null)).toEqual([{ code: "invalid_input" }]);
    expect(checkSchedule([])).toEqual([{ code: "invalid_input" }]);
    expect(checkSchedule({ ...valid, days: [] })).toEqual([{ code: "invalid_input", field: "days" }]);
    expect(checkSchedule({ ...valid, days: { 1: "09:00-17:00" } })).toEqual([{ code: "invalid_input", field: "days", day: 1 }]);
    expect(checkSchedule({ ...valid, holidays: "2026-12-25" })).toEqual([{ code: "invalid_input", field: "holidays" }]);
    expect(checkSchedule({ ...valid, holidayMode: "yes" })).toEqual([{ code: "invalid_input", field: "holidayMode" }]);
  });
});
