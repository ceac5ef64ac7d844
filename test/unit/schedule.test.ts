import { expect } from "chai";
import { schemaBounds } from "../../generated/limits.js";
import fc from "fast-check";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import rrulePkg from "rrule";
import { isValidTimeZone as authIsValidTimeZone } from "../../src/calendar/time-zones.js";
import { parseSimpleRule } from "../../src/domain/bills/periodic.js";
import {
  addDays,
  daysBetween,
  describeSchedule,
  isValidIsoDate,
  isValidTimeZone,
  nextOccurrences,
  occurrencesBetween,
  type Schedule,
  ScheduleError,
  todayInTimeZone,
  toRRule,
  validateSchedule,
  WEEKDAYS,
} from "../../src/domain/bills/schedule.js";

/** Expands a schedule the way the service does: stored RRULE + start date. */
function expand(s: Schedule, from: string, to: string, limit?: number): string[] {
  return occurrencesBetween(toRRule(s), s.start_date, from, to, limit);
}

function expectScheduleError(input: unknown, field: string, fragment: string): void {
  let caught: unknown;
  try {
    validateSchedule(input);
  } catch (e) {
    caught = e;
  }
  expect(caught, `expected a ScheduleError for ${JSON.stringify(input)}`).to.be.instanceOf(ScheduleError);
  const err = caught as ScheduleError;
  expect(err.field).to.equal(field);
  expect(err.message.startsWith(`${field}: `), err.message).to.equal(true);
  expect(err.message).to.contain(fragment);
  expect(err.expected).to.be.a("string").and.not.equal("");
  expect(err.errorName).to.equal("invalid_params");
}

describe("schedule: expansion against dates written by hand", () => {
  it("monthly on the 31st, Jan-May 2026: February falls on the 28th, April on the 30th", () => {
    const s: Schedule = { frequency: "monthly", start_date: "2026-01-31", day_of_month: 31 };
    expect(expand(s, "2026-01-01", "2026-05-31")).to.deep.equal(["2026-01-31", "2026-02-28", "2026-03-31", "2026-04-30", "2026-05-31"]);
  });

  it("monthly on the 31st in a leap year (2028): February falls on the 29th", () => {
    const s: Schedule = { frequency: "monthly", start_date: "2028-01-31" }; // day taken from start_date
    expect(expand(s, "2028-01-01", "2028-05-31")).to.deep.equal(["2028-01-31", "2028-02-29", "2028-03-31", "2028-04-30", "2028-05-31"]);
  });

  it("monthly on the 30th and on the 29th", () => {
    expect(expand({ frequency: "monthly", start_date: "2026-01-30" }, "2026-01-01", "2026-04-30")).to.deep.equal([
      "2026-01-30",
      "2026-02-28",
      "2026-03-30",
      "2026-04-30",
    ]);
    expect(expand({ frequency: "monthly", start_date: "2027-01-29" }, "2027-01-01", "2027-03-31")).to.deep.equal(["2027-01-29", "2027-02-28", "2027-03-29"]);
    expect(expand({ frequency: "monthly", start_date: "2028-01-29" }, "2028-01-01", "2028-03-31")).to.deep.equal(["2028-01-29", "2028-02-29", "2028-03-29"]);
  });

  it("monthly with day_of_month -1 is the last day of every month", () => {
    const s: Schedule = { frequency: "monthly", start_date: "2026-01-15", day_of_month: -1 };
    expect(expand(s, "2026-01-01", "2026-06-30")).to.deep.equal(["2026-01-31", "2026-02-28", "2026-03-31", "2026-04-30", "2026-05-31", "2026-06-30"]);
    expect(expand(s, "2028-02-01", "2028-03-31")).to.deep.equal(["2028-02-29", "2028-03-31"]);
  });

  it("monthly: the first due date is the first match on or after start_date", () => {
    expect(expand({ frequency: "monthly", start_date: "2026-01-20", day_of_month: 15 }, "2026-01-01", "2026-03-31")).to.deep.equal([
      "2026-02-15",
      "2026-03-15",
    ]);
    expect(expand({ frequency: "monthly", start_date: "2026-01-15", day_of_month: 31 }, "2026-01-01", "2026-02-28")).to.deep.equal([
      "2026-01-31",
      "2026-02-28",
    ]);
    // day 29 starting on Jan 30: January's 29th is before the start, so February's last day comes first
    expect(expand({ frequency: "monthly", start_date: "2026-01-30", day_of_month: 29 }, "2026-01-01", "2026-03-31")).to.deep.equal([
      "2026-02-28",
      "2026-03-29",
    ]);
  });

  it("every 2 months on the 31st", () => {
    const s: Schedule = { frequency: "monthly", start_date: "2026-01-31", interval: 2 };
    expect(expand(s, "2026-01-01", "2026-12-31")).to.deep.equal(["2026-01-31", "2026-03-31", "2026-05-31", "2026-07-31", "2026-09-30", "2026-11-30"]);
  });

  it("weekly from Friday 2026-01-02", () => {
    const s: Schedule = { frequency: "weekly", start_date: "2026-01-02" };
    expect(expand(s, "2026-01-01", "2026-02-06")).to.deep.equal(["2026-01-02", "2026-01-09", "2026-01-16", "2026-01-23", "2026-01-30", "2026-02-06"]);
  });

  it("biweekly from Friday 2026-01-02", () => {
    const s: Schedule = { frequency: "biweekly", start_date: "2026-01-02", weekday: "fri" };
    expect(expand(s, "2026-01-01", "2026-03-31")).to.deep.equal([
      "2026-01-02",
      "2026-01-16",
      "2026-01-30",
      "2026-02-13",
      "2026-02-27",
      "2026-03-13",
      "2026-03-27",
    ]);
  });

  it("biweekly with interval 2 is every 4 weeks", () => {
    const s: Schedule = { frequency: "biweekly", start_date: "2026-01-02", interval: 2 };
    expect(expand(s, "2026-01-01", "2026-03-31")).to.deep.equal(["2026-01-02", "2026-01-30", "2026-02-27", "2026-03-27"]);
  });

  it("weekly on another weekday than start_date: first such day on or after the start, then every N weeks", () => {
    // 2026-01-04 is a Sunday; the first Monday on or after it is 2026-01-05
    expect(expand({ frequency: "biweekly", start_date: "2026-01-04", weekday: "mon" }, "2026-01-01", "2026-02-28")).to.deep.equal([
      "2026-01-05",
      "2026-01-19",
      "2026-02-02",
      "2026-02-16",
    ]);
    // 2026-01-07 is a Wednesday; the first Monday on or after it is 2026-01-12
    expect(expand({ frequency: "weekly", start_date: "2026-01-07", weekday: "mon", interval: 3 }, "2026-01-01", "2026-03-31")).to.deep.equal([
      "2026-01-12",
      "2026-02-02",
      "2026-02-23",
      "2026-03-16",
    ]);
  });

  it("ends by count: biweekly from a Friday, 6 times", () => {
    const s: Schedule = { frequency: "biweekly", start_date: "2026-01-02", count: 6 };
    const six = ["2026-01-02", "2026-01-16", "2026-01-30", "2026-02-13", "2026-02-27", "2026-03-13"];
    expect(expand(s, "2025-01-01", "2030-12-31")).to.deep.equal(six);
    expect(nextOccurrences(toRRule(s), s.start_date, "2026-03-13", 3)).to.deep.equal([]);
    expect(nextOccurrences(toRRule(s), s.start_date, "2026-02-20", 3)).to.deep.equal(["2026-02-27", "2026-03-13"]);
    // the count runs from start_date, not from the window
    expect(expand(s, "2026-02-01", "2030-12-31")).to.deep.equal(["2026-02-13", "2026-02-27", "2026-03-13"]);
  });

  it("ends by count on a monthly day-31 bill", () => {
    const s: Schedule = { frequency: "monthly", start_date: "2026-01-31", count: 3 };
    expect(expand(s, "2026-01-01", "2027-12-31")).to.deep.equal(["2026-01-31", "2026-02-28", "2026-03-31"]);
  });

  it("ends by date, inclusive", () => {
    expect(expand({ frequency: "weekly", start_date: "2026-01-02", end_date: "2026-01-30" }, "2026-01-01", "2026-12-31")).to.deep.equal([
      "2026-01-02",
      "2026-01-09",
      "2026-01-16",
      "2026-01-23",
      "2026-01-30",
    ]);
    expect(expand({ frequency: "weekly", start_date: "2026-01-02", end_date: "2026-01-29" }, "2026-01-01", "2026-12-31")).to.deep.equal([
      "2026-01-02",
      "2026-01-09",
      "2026-01-16",
      "2026-01-23",
    ]);
    expect(expand({ frequency: "monthly", start_date: "2026-01-31", end_date: "2026-04-29" }, "2026-01-01", "2026-12-31")).to.deep.equal([
      "2026-01-31",
      "2026-02-28",
      "2026-03-31",
    ]);
    expect(expand({ frequency: "daily", start_date: "2026-01-02", end_date: "2026-01-02" }, "2026-01-01", "2026-12-31")).to.deep.equal(["2026-01-02"]);
  });

  it("yearly from February 29: February 28 in non-leap years, February 29 in leap years", () => {
    const s: Schedule = { frequency: "yearly", start_date: "2024-02-29" };
    expect(expand(s, "2024-01-01", "2029-12-31")).to.deep.equal(["2024-02-29", "2025-02-28", "2026-02-28", "2027-02-28", "2028-02-29", "2029-02-28"]);
    // 2100 is not a leap year
    expect(expand(s, "2099-01-01", "2101-12-31")).to.deep.equal(["2099-02-28", "2100-02-28", "2101-02-28"]);
  });

  it("yearly on the last day of February and on an ordinary day", () => {
    expect(expand({ frequency: "yearly", start_date: "2027-02-28", day_of_month: -1 }, "2027-01-01", "2029-12-31")).to.deep.equal([
      "2027-02-28",
      "2028-02-29",
      "2029-02-28",
    ]);
    expect(expand({ frequency: "yearly", start_date: "2026-03-15" }, "2026-01-01", "2028-12-31")).to.deep.equal(["2026-03-15", "2027-03-15", "2028-03-15"]);
    expect(expand({ frequency: "yearly", start_date: "2026-04-01", day_of_month: 30, interval: 2 }, "2026-01-01", "2030-12-31")).to.deep.equal([
      "2026-04-30",
      "2028-04-30",
      "2030-04-30",
    ]);
  });

  it("quarterly on the 15th and on the 31st", () => {
    expect(expand({ frequency: "quarterly", start_date: "2026-01-15" }, "2026-01-01", "2027-01-31")).to.deep.equal([
      "2026-01-15",
      "2026-04-15",
      "2026-07-15",
      "2026-10-15",
      "2027-01-15",
    ]);
    expect(expand({ frequency: "quarterly", start_date: "2026-01-31" }, "2026-01-01", "2026-12-31")).to.deep.equal([
      "2026-01-31",
      "2026-04-30",
      "2026-07-31",
      "2026-10-31",
    ]);
    expect(expand({ frequency: "quarterly", start_date: "2025-11-30", day_of_month: 30 }, "2025-11-01", "2026-08-31")).to.deep.equal([
      "2025-11-30",
      "2026-02-28",
      "2026-05-30",
      "2026-08-30",
    ]);
    expect(expand({ frequency: "quarterly", start_date: "2026-01-15", interval: 2 }, "2026-01-01", "2027-01-31")).to.deep.equal([
      "2026-01-15",
      "2026-07-15",
      "2027-01-15",
    ]);
  });

  it("a window spanning the year boundary, 2026-12-20 to 2027-01-10", () => {
    const from = "2026-12-20";
    const to = "2027-01-10";
    expect(expand({ frequency: "monthly", start_date: "2026-01-05" }, from, to)).to.deep.equal(["2027-01-05"]);
    expect(expand({ frequency: "monthly", start_date: "2026-01-31", day_of_month: -1 }, from, to)).to.deep.equal(["2026-12-31"]);
    expect(expand({ frequency: "weekly", start_date: "2026-01-02" }, from, to)).to.deep.equal(["2026-12-25", "2027-01-01", "2027-01-08"]);
    expect(expand({ frequency: "biweekly", start_date: "2026-01-02" }, from, to)).to.deep.equal(["2027-01-01"]); // 364 days = 26 fortnights after 2026-01-02
    expect(expand({ frequency: "yearly", start_date: "2020-01-01" }, from, to)).to.deep.equal(["2027-01-01"]);
    expect(expand({ frequency: "yearly", start_date: "2020-12-31" }, from, to)).to.deep.equal(["2026-12-31"]);
    expect(expand({ frequency: "daily", start_date: "2026-12-20", interval: 3 }, from, to)).to.deep.equal([
      "2026-12-20",
      "2026-12-23",
      "2026-12-26",
      "2026-12-29",
      "2027-01-01",
      "2027-01-04",
      "2027-01-07",
      "2027-01-10",
    ]);
  });

  it("daily with interval 3 across the end of February", () => {
    expect(expand({ frequency: "daily", start_date: "2026-02-26", interval: 3 }, "2026-02-01", "2026-03-10")).to.deep.equal([
      "2026-02-26",
      "2026-03-01",
      "2026-03-04",
      "2026-03-07",
      "2026-03-10",
    ]);
    expect(expand({ frequency: "daily", start_date: "2028-02-26", interval: 3 }, "2028-02-01", "2028-03-10")).to.deep.equal([
      "2028-02-26",
      "2028-02-29",
      "2028-03-03",
      "2028-03-06",
      "2028-03-09",
    ]);
    // a window that starts in the middle of the series keeps the phase of start_date
    expect(expand({ frequency: "daily", start_date: "2026-02-26", interval: 3 }, "2026-03-02", "2026-03-08")).to.deep.equal(["2026-03-04", "2026-03-07"]);
  });

  it("once: only the start date", () => {
    const s: Schedule = { frequency: "once", start_date: "2026-12-25" };
    expect(expand(s, "2026-01-01", "2027-12-31")).to.deep.equal(["2026-12-25"]);
    expect(expand(s, "2026-12-26", "2027-12-31")).to.deep.equal([]);
    expect(expand({ frequency: "once", start_date: "2026-12-25", count: 1 }, "2026-01-01", "2027-12-31")).to.deep.equal(["2026-12-25"]);
  });

  it("windows: inclusive at both ends, empty when reversed, capped by the limit", () => {
    const s: Schedule = { frequency: "monthly", start_date: "2026-01-31" };
    expect(expand(s, "2026-02-28", "2026-03-31")).to.deep.equal(["2026-02-28", "2026-03-31"]);
    expect(expand(s, "2026-03-31", "2026-02-28")).to.deep.equal([]);
    expect(expand(s, "2026-01-01", "2030-12-31", 2)).to.deep.equal(["2026-01-31", "2026-02-28"]);
    expect(expand({ frequency: "daily", start_date: "2000-01-01" }, "2000-01-01", "2099-12-31").length).to.equal(1000);
    expect(() => expand(s, "2026-01-01", "2026-12-31", 0)).to.throw(RangeError);
    expect(() => expand(s, "2026-13-01", "2026-12-31")).to.throw(ScheduleError, "from:");
  });

  it("nextOccurrences: strictly after, or on or after with inclusive", () => {
    const r = toRRule({ frequency: "monthly", start_date: "2026-01-31" });
    expect(nextOccurrences(r, "2026-01-31", "2026-02-28", 3)).to.deep.equal(["2026-03-31", "2026-04-30", "2026-05-31"]);
    expect(nextOccurrences(r, "2026-01-31", "2026-02-28", 3, true)).to.deep.equal(["2026-02-28", "2026-03-31", "2026-04-30"]);
    expect(nextOccurrences(r, "2026-01-31", "2025-06-01", 2)).to.deep.equal(["2026-01-31", "2026-02-28"]);
    expect(nextOccurrences(r, "2026-01-31", "2027-12-15", 3)).to.deep.equal(["2027-12-31", "2028-01-31", "2028-02-29"]);
  });

  it("rejects RRULE strings that were not produced by toRRule", () => {
    expect(() => occurrencesBetween("DTSTART:20260101\nRRULE:FREQ=DAILY", "2026-01-01", "2026-01-01", "2026-01-31")).to.throw(Error);
    expect(() => occurrencesBetween("FREQ=DAILY;TZID=Europe/Paris", "2026-01-01", "2026-01-01", "2026-01-31")).to.throw(Error);
    expect(() => occurrencesBetween("BOGUS", "2026-01-01", "2026-01-01", "2026-01-31")).to.throw(Error);
    expect(occurrencesBetween("RRULE:FREQ=DAILY;INTERVAL=10", "2026-01-01", "2026-01-01", "2026-01-31")).to.deep.equal([
      "2026-01-01",
      "2026-01-11",
      "2026-01-21",
      "2026-01-31",
    ]);
  });
});

describe("schedule: toRRule", () => {
  const cases: Array<[Schedule, string]> = [
    [{ frequency: "once", start_date: "2026-03-15" }, "FREQ=DAILY;INTERVAL=1;COUNT=1"],
    [{ frequency: "daily", start_date: "2026-03-15", interval: 3 }, "FREQ=DAILY;INTERVAL=3"],
    [{ frequency: "weekly", start_date: "2026-01-02" }, "FREQ=WEEKLY;INTERVAL=1;BYDAY=FR;WKST=FR"],
    [{ frequency: "biweekly", start_date: "2026-01-02", count: 6 }, "FREQ=WEEKLY;INTERVAL=2;BYDAY=FR;WKST=FR;COUNT=6"],
    [{ frequency: "biweekly", start_date: "2026-01-04", weekday: "mon", interval: 2 }, "FREQ=WEEKLY;INTERVAL=4;BYDAY=MO;WKST=SU"],
    [{ frequency: "monthly", start_date: "2026-01-15" }, "FREQ=MONTHLY;INTERVAL=1;BYMONTHDAY=15"],
    [{ frequency: "monthly", start_date: "2026-01-15", day_of_month: -1 }, "FREQ=MONTHLY;INTERVAL=1;BYMONTHDAY=-1"],
    [{ frequency: "monthly", start_date: "2026-01-31" }, "FREQ=MONTHLY;INTERVAL=1;BYMONTHDAY=28,29,30,31;BYSETPOS=-1"],
    [{ frequency: "monthly", start_date: "2026-01-01", day_of_month: 30 }, "FREQ=MONTHLY;INTERVAL=1;BYMONTHDAY=28,29,30;BYSETPOS=-1"],
    [
      { frequency: "monthly", start_date: "2026-01-01", day_of_month: 29, end_date: "2026-12-31" },
      "FREQ=MONTHLY;INTERVAL=1;BYMONTHDAY=28,29;BYSETPOS=-1;UNTIL=20261231",
    ],
    [{ frequency: "monthly", start_date: "2026-01-28" }, "FREQ=MONTHLY;INTERVAL=1;BYMONTHDAY=28"],
    [{ frequency: "quarterly", start_date: "2026-01-31" }, "FREQ=MONTHLY;INTERVAL=3;BYMONTHDAY=28,29,30,31;BYSETPOS=-1"],
    [{ frequency: "quarterly", start_date: "2026-01-10", interval: 2 }, "FREQ=MONTHLY;INTERVAL=6;BYMONTHDAY=10"],
    [{ frequency: "yearly", start_date: "2024-02-29" }, "FREQ=YEARLY;INTERVAL=1;BYMONTH=2;BYMONTHDAY=28,29;BYSETPOS=-1"],
    [{ frequency: "yearly", start_date: "2026-03-15", count: 5 }, "FREQ=YEARLY;INTERVAL=1;BYMONTH=3;BYMONTHDAY=15;COUNT=5"],
    [{ frequency: "yearly", start_date: "2026-02-10", day_of_month: -1 }, "FREQ=YEARLY;INTERVAL=1;BYMONTH=2;BYMONTHDAY=-1"],
  ];
  for (const [s, rrule] of cases) {
    it(`${JSON.stringify(s)} -> ${rrule}`, () => {
      expect(toRRule(s)).to.equal(rrule);
    });
  }
});

describe("schedule: validateSchedule", () => {
  it("returns a clean copy with interval defaulted and nulls dropped", () => {
    expect(
      validateSchedule({
        frequency: "monthly",
        start_date: "2026-01-31",
        weekday: null,
        count: null,
        day_of_month: 31,
      }),
    ).to.deep.equal({ frequency: "monthly", start_date: "2026-01-31", interval: 1, day_of_month: 31 });
    expect(
      validateSchedule({
        frequency: "biweekly",
        start_date: "2026-01-02",
        weekday: "fri",
        interval: 2,
        end_date: "2026-12-31",
      }),
    ).to.deep.equal({
      frequency: "biweekly",
      start_date: "2026-01-02",
      interval: 2,
      weekday: "fri",
      end_date: "2026-12-31",
    });
  });

  const bad: Array<[unknown, string, string]> = [
    ["monthly", "schedule", "must be an object"],
    [null, "schedule", "must be an object"],
    [{ start_date: "2026-01-01" }, "schedule.frequency", "must be one of once, daily, weekly, biweekly, monthly, quarterly, yearly"],
    [{ frequency: "fortnightly", start_date: "2026-01-01" }, "schedule.frequency", 'got "fortnightly"'],
    [{ frequency: "monthly" }, "schedule.start_date", "YYYY-MM-DD"],
    [{ frequency: "monthly", start_date: "2026-02-30" }, "schedule.start_date", 'got "2026-02-30"'],
    [{ frequency: "monthly", start_date: "2027-02-29" }, "schedule.start_date", "real calendar date"],
    [{ frequency: "monthly", start_date: "2026-1-5" }, "schedule.start_date", "YYYY-MM-DD"],
    [{ frequency: "monthly", start_date: "2026-01-05T00:00:00Z" }, "schedule.start_date", "YYYY-MM-DD"],
    [{ frequency: "monthly", start_date: "1899-12-31" }, "schedule.start_date", "real calendar date"],
    [{ frequency: "monthly", start_date: "2026-01-01", interval: 0 }, "schedule.interval", `integer from 1 to ${schemaBounds.BillSchedule.interval.maximum}`],
    [{ frequency: "monthly", start_date: "2026-01-01", interval: 1.5 }, "schedule.interval", "got 1.5"],
    [{ frequency: "monthly", start_date: "2026-01-01", interval: "2" }, "schedule.interval", 'got "2"'],
    [{ frequency: "once", start_date: "2026-01-01", interval: 2 }, "schedule.interval", 'not used with frequency "once"'],
    [
      { frequency: "monthly", start_date: "2026-01-01", weekday: "mon" },
      "schedule.weekday",
      'only used with frequency weekly or biweekly, not "monthly"; remove it (use day_of_month instead)',
    ],
    [{ frequency: "daily", start_date: "2026-01-01", weekday: "mon" }, "schedule.weekday", 'not "daily"'],
    [{ frequency: "weekly", start_date: "2026-01-01", weekday: "monday" }, "schedule.weekday", "must be one of mon, tue, wed, thu, fri, sat, sun"],
    [
      { frequency: "weekly", start_date: "2026-01-01", day_of_month: 5 },
      "schedule.day_of_month",
      'only used with frequency monthly, quarterly or yearly, not "weekly"; remove it (use weekday instead)',
    ],
    [{ frequency: "once", start_date: "2026-01-01", day_of_month: 5 }, "schedule.day_of_month", 'not "once"'],
    [{ frequency: "monthly", start_date: "2026-01-01", day_of_month: 0 }, "schedule.day_of_month", "from 1 to 31, or -1"],
    [{ frequency: "monthly", start_date: "2026-01-01", day_of_month: 32 }, "schedule.day_of_month", "got 32"],
    [{ frequency: "monthly", start_date: "2026-01-01", day_of_month: -2 }, "schedule.day_of_month", "got -2"],
    [{ frequency: "yearly", start_date: "2026-04-01", day_of_month: 31 }, "schedule.day_of_month", "April (the month of start_date) has at most 30 days"],
    [{ frequency: "yearly", start_date: "2026-02-01", day_of_month: 30 }, "schedule.day_of_month", "February (the month of start_date) has at most 29 days"],
    [{ frequency: "monthly", start_date: "2026-01-01", end_date: "2026-12-31", count: 3 }, "schedule.count", "either end_date or count"],
    [{ frequency: "monthly", start_date: "2026-01-31", end_date: "2026-01-30" }, "schedule.end_date", "must not be before start_date 2026-01-31"],
    [{ frequency: "monthly", start_date: "2026-01-31", end_date: "31/12/2026" }, "schedule.end_date", "YYYY-MM-DD"],
    [{ frequency: "once", start_date: "2026-01-31", end_date: "2026-02-28" }, "schedule.end_date", 'not used with frequency "once"'],
    [{ frequency: "monthly", start_date: "2026-01-01", count: 0 }, "schedule.count", `integer from 1 to ${schemaBounds.BillSchedule.count.maximum}`],
    [{ frequency: "monthly", start_date: "2026-01-01", count: 10001 }, "schedule.count", "got 10001"],
    [{ frequency: "once", start_date: "2026-01-01", count: 2 }, "schedule.count", 'not used with frequency "once"'],
    [{ frequency: "monthly", start_date: "2026-01-01", until: "2026-12-31" }, "schedule.until", "is not a schedule field"],
  ];
  for (const [input, field, fragment] of bad) {
    it(`${JSON.stringify(input)} -> ${field}`, () => {
      expectScheduleError(input, field, fragment);
    });
  }

  it("uses the field prefix it is given", () => {
    try {
      validateSchedule({ frequency: "weekly", start_date: "2026-01-01", day_of_month: 1 }, "bill.schedule");
      expect.fail("expected a ScheduleError");
    } catch (e) {
      expect((e as ScheduleError).field).to.equal("bill.schedule.day_of_month");
    }
  });

  it("toRRule and describeSchedule validate too", () => {
    expect(() => toRRule({ frequency: "monthly", start_date: "2026-01-01", weekday: "mon" })).to.throw(ScheduleError, "schedule.weekday");
    expect(() => describeSchedule({ frequency: "weekly", start_date: "tomorrow" })).to.throw(ScheduleError, "schedule.start_date");
  });
});

describe("schedule: describeSchedule", () => {
  const cases: Array<[Schedule, string]> = [
    [{ frequency: "once", start_date: "2026-03-15" }, "Once, on 2026-03-15"],
    [{ frequency: "daily", start_date: "2026-03-15" }, "Every day, from 2026-03-15"],
    [{ frequency: "daily", start_date: "2026-03-15", interval: 3 }, "Every 3 days, from 2026-03-15"],
    [{ frequency: "weekly", start_date: "2026-01-02" }, "Every week on Friday, from 2026-01-02"],
    [{ frequency: "weekly", start_date: "2026-01-02", interval: 3, weekday: "mon" }, "Every 3 weeks on Monday, from 2026-01-02"],
    [{ frequency: "biweekly", start_date: "2026-01-02", count: 6 }, "Every 2 weeks on Friday, from 2026-01-02, 6 times"],
    [{ frequency: "biweekly", start_date: "2026-01-02", interval: 2 }, "Every 4 weeks on Friday, from 2026-01-02"],
    [{ frequency: "monthly", start_date: "2026-01-31", day_of_month: -1 }, "Every month on the last day, from 2026-01-31"],
    [{ frequency: "monthly", start_date: "2026-01-31" }, "Every month on the 31st (the last day in shorter months), from 2026-01-31"],
    [{ frequency: "monthly", start_date: "2026-01-01", day_of_month: 1, end_date: "2026-12-31" }, "Every month on the 1st, from 2026-01-01, until 2026-12-31"],
    [{ frequency: "monthly", start_date: "2026-01-02", interval: 2 }, "Every 2 months on the 2nd, from 2026-01-02"],
    [{ frequency: "monthly", start_date: "2026-01-23" }, "Every month on the 23rd, from 2026-01-23"],
    [{ frequency: "monthly", start_date: "2026-01-11" }, "Every month on the 11th, from 2026-01-11"],
    [{ frequency: "monthly", start_date: "2026-01-22" }, "Every month on the 22nd, from 2026-01-22"],
    [{ frequency: "quarterly", start_date: "2026-01-15" }, "Every quarter on the 15th, from 2026-01-15"],
    [{ frequency: "quarterly", start_date: "2026-01-15", interval: 2 }, "Every 6 months on the 15th, from 2026-01-15"],
    [{ frequency: "yearly", start_date: "2026-03-15" }, "Every year on March 15, from 2026-03-15"],
    [{ frequency: "yearly", start_date: "2024-02-29" }, "Every year on February 29 (February 28 in other years), from 2024-02-29"],
    [
      { frequency: "yearly", start_date: "2026-02-01", day_of_month: -1, interval: 2, count: 1 },
      "Every 2 years on the last day of February, from 2026-02-01, 1 time",
    ],
  ];
  for (const [s, text] of cases) {
    it(text, () => {
      expect(describeSchedule(s)).to.equal(text);
    });
  }
});

describe("schedule: calendar days and time zones", () => {
  it("todayInTimeZone: Kiritimati (UTC+14) and Pago Pago (UTC-11) at the same instant are two days apart", () => {
    const now = new Date("2026-03-10T10:30:00Z");
    expect(todayInTimeZone("Pacific/Kiritimati", now)).to.equal("2026-03-11"); // 00:30 on the 11th
    expect(todayInTimeZone("Pacific/Pago_Pago", now)).to.equal("2026-03-09"); // 23:30 on the 9th
    expect(todayInTimeZone("UTC", now)).to.equal("2026-03-10");
  });

  it("todayInTimeZone across the year boundary and around a DST change", () => {
    const newYearsEve = new Date("2026-12-31T10:30:00Z");
    expect(todayInTimeZone("Pacific/Kiritimati", newYearsEve)).to.equal("2027-01-01");
    expect(todayInTimeZone("Pacific/Pago_Pago", newYearsEve)).to.equal("2026-12-30");
    // 2026-03-08 is the US spring-forward day: 07:59Z is 23:59 PST on the 7th, 08:00Z is 00:00 PST on the 8th
    expect(todayInTimeZone("America/Los_Angeles", new Date("2026-03-08T07:59:59Z"))).to.equal("2026-03-07");
    expect(todayInTimeZone("America/Los_Angeles", new Date("2026-03-08T08:00:00Z"))).to.equal("2026-03-08");
    expect(todayInTimeZone("Asia/Kolkata", new Date("2026-06-30T18:29:59Z"))).to.equal("2026-06-30");
    expect(todayInTimeZone("Asia/Kolkata", new Date("2026-06-30T18:30:00Z"))).to.equal("2026-07-01");
  });

  it("todayInTimeZone refuses an unknown zone", () => {
    expect(() => todayInTimeZone("Mars/Olympus_Mons", new Date())).to.throw(ScheduleError, "timezone: unknown time zone");
  });

  it("isValidTimeZone is the one check user creation uses too", () => {
    expect(isValidTimeZone).to.equal(authIsValidTimeZone);
  });

  it("isValidTimeZone", () => {
    for (const tz of ["UTC", "Europe/Paris", "America/Los_Angeles", "Pacific/Kiritimati", "Pacific/Pago_Pago", "Asia/Kathmandu"]) {
      expect(isValidTimeZone(tz), tz).to.equal(true);
    }
    for (const tz of ["", "Mars/Olympus_Mons", "Europe/Pariss", 42, null, undefined, "x".repeat(65)]) {
      expect(isValidTimeZone(tz), String(tz)).to.equal(false);
    }
  });

  it("date helpers work on calendar days", () => {
    expect(isValidIsoDate("2028-02-29")).to.equal(true);
    expect(isValidIsoDate("2026-02-29")).to.equal(false);
    expect(isValidIsoDate("2026-00-10")).to.equal(false);
    expect(addDays("2026-12-30", 3)).to.equal("2027-01-02");
    expect(addDays("2026-03-01", -1)).to.equal("2026-02-28");
    expect(addDays("2026-03-07", 1)).to.equal("2026-03-08"); // US DST change: still one calendar day
    expect(daysBetween("2026-03-07", "2026-03-09")).to.equal(2);
    expect(daysBetween("2026-12-31", "2026-12-20")).to.equal(-11);
  });

  it("expansion does not depend on the host timezone (child processes with TZ set)", function () {
    this.timeout(30000);
    const moduleUrl = new URL("../../src/domain/bills/schedule.ts", import.meta.url).href;
    const script = `
      const m = await import(${JSON.stringify(moduleUrl)});
      const schedules = [
        { frequency: 'monthly', start_date: '2026-01-31' },
        { frequency: 'monthly', start_date: '2026-01-15', day_of_month: -1 },
        { frequency: 'biweekly', start_date: '2026-01-02', count: 6 },
        { frequency: 'weekly', start_date: '2026-03-06' },
        { frequency: 'yearly', start_date: '2024-02-29' },
        { frequency: 'daily', start_date: '2026-10-20', interval: 3, end_date: '2026-11-10' },
      ];
      const out = schedules.map((s) => m.occurrencesBetween(m.toRRule(s), s.start_date, '2026-01-01', '2028-12-31', 40));
      out.push(m.nextOccurrences(m.toRRule(schedules[0]), '2026-01-31', '2026-03-08', 3, true));
      out.push([m.addDays('2026-03-07', 1), m.addDays('2026-10-31', 2), String(m.daysBetween('2026-03-01', '2026-04-01'))]);
      process.stdout.write(JSON.stringify(out));
    `;
    const run = (tz: string): unknown =>
      JSON.parse(
        execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
          env: { ...process.env, TZ: tz },
          cwd: fileURLToPath(new URL("../..", import.meta.url)),
          encoding: "utf8",
        }),
      );
    const results = ["UTC", "America/Los_Angeles", "Pacific/Kiritimati", "Pacific/Pago_Pago", "Australia/Lord_Howe"].map((tz) => [tz, run(tz)] as const);
    const [, reference] = results[0] ?? ["", null];
    expect((reference as string[][])[0]?.slice(0, 3)).to.deep.equal(["2026-01-31", "2026-02-28", "2026-03-31"]);
    for (const [tz, result] of results) {
      expect(result, tz).to.deep.equal(reference);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The arithmetic expansion (periodic.ts) against the `rrule` package expanding from the start date,
// which is how every due date was computed before: same dates, same order, same limits.

const { RRule } = rrulePkg;

/** The former expansion, kept here verbatim as the reference: rrule from DTSTART = start date. */
function rruleBetween(rrule: string, startDate: string, from: string, to: string, limit: number, inc = true): string[] {
  const rule = new RRule({ ...RRule.parseString(rrule.trim()), dtstart: new Date(`${startDate}T00:00:00Z`), tzid: null }, true);
  const fromDay = new Date(`${from}T00:00:00Z`);
  const toDay = new Date(`${to}T00:00:00Z`);
  if (toDay.getTime() < fromDay.getTime()) return [];
  return rule.between(fromDay, toDay, inc, (_d, i) => i < limit).map((d) => d.toISOString().slice(0, 10));
}

const DAY_MS = 86_400_000;
const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const FIRST_START = Date.UTC(2019, 0, 1);
const LAST_START = Date.UTC(2031, 11, 31);

/** Start dates 2019-2031, with month ends and February 29 (2020, 2024, 2028) drawn often. */
const startDateArb = fc.oneof(
  fc.integer({ min: 0, max: (LAST_START - FIRST_START) / DAY_MS }).map((n) => dayOf(FIRST_START + n * DAY_MS)),
  fc
    .record({ year: fc.integer({ min: 2019, max: 2031 }), month: fc.integer({ min: 0, max: 11 }), back: fc.integer({ min: 0, max: 3 }) })
    .map(({ year, month, back }) => dayOf(Date.UTC(year, month + 1, 0 - back))),
  fc.constantFrom("2020-02-29", "2024-02-29", "2028-02-29", "2024-02-28", "2023-03-01", "2026-01-31"),
);

const scheduleArb: fc.Arbitrary<Schedule | null> = fc
  .record({
    frequency: fc.constantFrom("once", "daily", "weekly", "biweekly", "monthly", "quarterly", "yearly"),
    start_date: startDateArb,
    interval: fc.integer({ min: 1, max: 4 }),
    day_of_month: fc.option(fc.oneof(fc.integer({ min: 1, max: 31 }), fc.constantFrom(-1, 28, 29, 30, 31)), { nil: undefined }),
    weekday: fc.option(fc.constantFrom(...WEEKDAYS), { nil: undefined }),
    end: fc.oneof(fc.constant(null), fc.record({ count: fc.integer({ min: 1, max: 60 }) }), fc.record({ endAfterDays: fc.integer({ min: 0, max: 2000 }) })),
  })
  .map((r) => {
    const s: Schedule = { frequency: r.frequency as Schedule["frequency"], start_date: r.start_date };
    if (r.frequency === "once") return s;
    s.interval = r.interval;
    if (["monthly", "quarterly", "yearly"].includes(r.frequency) && r.day_of_month !== undefined) s.day_of_month = r.day_of_month;
    if (["weekly", "biweekly"].includes(r.frequency) && r.weekday !== undefined) s.weekday = r.weekday;
    if (r.end && "count" in r.end) s.count = r.end.count;
    if (r.end && "endAfterDays" in r.end) s.end_date = addDays(r.start_date, r.end.endAfterDays);
    try {
      return validateSchedule(s);
    } catch {
      return null; // e.g. yearly on April 31: refused at the boundary, never stored
    }
  });

/** Windows before, around, inside and long after the series (up to ~11 years past its start). */
const windowArb = fc.record({
  startOffset: fc.oneof(fc.integer({ min: -800, max: 4000 }), fc.integer({ min: -40, max: 40 })),
  length: fc.oneof(fc.integer({ min: -3, max: 60 }), fc.integer({ min: 0, max: 800 })),
  limit: fc.oneof(fc.constant(1000), fc.integer({ min: 1, max: 5 })),
});

describe("schedule: arithmetic expansion equals rrule's expansion from the start date", () => {
  it("every schedule toRRule writes takes the arithmetic path", () => {
    fc.assert(
      fc.property(scheduleArb, (s) => {
        fc.pre(s !== null);
        expect(parseSimpleRule(toRRule(s!), new Date(`${s!.start_date}T00:00:00Z`)), toRRule(s!)).to.not.equal(null);
      }),
      { numRuns: 300 },
    );
  });

  it("occurrencesBetween: windows before, inside and after the series", () => {
    fc.assert(
      fc.property(scheduleArb, windowArb, (s, w) => {
        fc.pre(s !== null);
        const rrule = toRRule(s!);
        const from = addDays(s!.start_date, w.startOffset);
        const to = addDays(from, w.length);
        const expected = rruleBetween(rrule, s!.start_date, from, to, w.limit);
        expect(occurrencesBetween(rrule, s!.start_date, from, to, w.limit), `${rrule} ${s!.start_date} ${from}..${to}`).to.deep.equal(expected);
      }),
      { numRuns: 400 },
    );
  });

  it("nextOccurrences: strictly after and on or after, from before the start to years later", () => {
    fc.assert(
      fc.property(scheduleArb, fc.integer({ min: -400, max: 4000 }), fc.integer({ min: 1, max: 5 }), fc.boolean(), (s, offset, n, inclusive) => {
        fc.pre(s !== null);
        const rrule = toRRule(s!);
        const after = addDays(s!.start_date, offset);
        const expected = rruleBetween(rrule, s!.start_date, after, "9999-12-31", n, inclusive);
        expect(nextOccurrences(rrule, s!.start_date, after, n, inclusive), `${rrule} ${s!.start_date} after ${after}`).to.deep.equal(expected);
      }),
      { numRuns: 300 },
    );
  });

  it("the list_bill_reminders window (today - 7 .. today + days_ahead) in the user's timezone", () => {
    const zones = ["UTC", "Pacific/Kiritimati", "Pacific/Pago_Pago", "America/Los_Angeles", "Australia/Lord_Howe", "Asia/Kolkata"];
    fc.assert(
      fc.property(
        scheduleArb,
        fc.constantFrom(...zones),
        fc.integer({ min: Date.UTC(2018, 11, 1), max: Date.UTC(2034, 0, 1) }),
        fc.integer({ min: 1, max: 365 }),
        (s, zone, nowMs, daysAhead) => {
          fc.pre(s !== null);
          const rrule = toRRule(s!);
          const today = todayInTimeZone(zone, new Date(nowMs));
          const from = addDays(today, -7);
          const to = addDays(today, daysAhead);
          expect(occurrencesBetween(rrule, s!.start_date, from, to), `${rrule} ${s!.start_date} ${zone} ${today}`).to.deep.equal(
            rruleBetween(rrule, s!.start_date, from, to, 1000),
          );
          expect(nextOccurrences(rrule, s!.start_date, today, 3, true)).to.deep.equal(rruleBetween(rrule, s!.start_date, today, "9999-12-31", 3));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("cases written out: month ends, February 29, counts ending inside and before the window, the year 9999", () => {
    const cases: Array<[Schedule, string, string]> = [
      [{ frequency: "monthly", start_date: "2024-01-31", interval: 1 }, "2031-01-01", "2031-04-30"],
      [{ frequency: "monthly", start_date: "2026-01-20", day_of_month: 15, interval: 2 }, "2026-01-01", "2026-12-31"],
      [{ frequency: "quarterly", start_date: "2024-02-29", day_of_month: 30, interval: 1 }, "2029-01-01", "2030-12-31"],
      [{ frequency: "yearly", start_date: "2024-02-29", interval: 1 }, "2027-01-01", "2033-12-31"],
      [{ frequency: "yearly", start_date: "2024-03-01", day_of_month: -1, interval: 3 }, "2024-01-01", "2040-12-31"],
      [{ frequency: "yearly", start_date: "2024-12-31", day_of_month: 1, interval: 1, count: 3 }, "2024-01-01", "2030-12-31"],
      [{ frequency: "monthly", start_date: "2026-01-31", day_of_month: 31, interval: 1, count: 5 }, "2026-04-01", "2026-12-31"],
      [{ frequency: "monthly", start_date: "2026-01-31", day_of_month: 31, interval: 1, count: 2 }, "2026-04-01", "2026-12-31"],
      [{ frequency: "weekly", start_date: "2026-03-15", weekday: "sat", interval: 3, count: 4 }, "2026-03-01", "2026-06-30"],
      [{ frequency: "biweekly", start_date: "2026-03-15", weekday: "sun", interval: 1, end_date: "2026-04-12" }, "2026-03-15", "2026-05-31"],
      [{ frequency: "daily", start_date: "2019-01-01", interval: 4 }, "2026-02-25", "2026-03-05"],
      [{ frequency: "monthly", start_date: "9999-11-30", interval: 1 }, "9999-01-01", "9999-12-31"],
      [{ frequency: "once", start_date: "2026-03-15" }, "2026-03-15", "2026-03-15"],
    ];
    for (const [s, from, to] of cases) {
      const rrule = toRRule(s);
      const label = `${rrule} ${s.start_date} ${from}..${to}`;
      expect(occurrencesBetween(rrule, s.start_date, from, to), label).to.deep.equal(rruleBetween(rrule, s.start_date, from, to, 1000));
      expect(nextOccurrences(rrule, s.start_date, from, 4), label).to.deep.equal(rruleBetween(rrule, s.start_date, from, "9999-12-31", 4, false));
    }
  });

  it("the remembered parse of a rule does not outlive its inputs: another start date, a bad start date", () => {
    const rrule = toRRule({ frequency: "monthly", start_date: "2026-01-31" });
    expect(occurrencesBetween(rrule, "2026-01-31", "2026-02-01", "2026-03-31")).to.deep.equal(["2026-02-28", "2026-03-31"]);
    expect(occurrencesBetween(rrule, "2026-03-05", "2026-02-01", "2026-04-30")).to.deep.equal(["2026-03-31", "2026-04-30"]);
    expect(() => occurrencesBetween(rrule, "2026-02-30", "2026-02-01", "2026-03-31")).to.throw(ScheduleError, "start_date:");
    expect(() => nextOccurrences(rrule, "2026-02-30", "2026-02-01", 1)).to.throw(ScheduleError, "start_date:");
    expect(occurrencesBetween(rrule, "2026-01-31", "2026-02-01", "2026-03-31")).to.deep.equal(["2026-02-28", "2026-03-31"]);
  });

  it("rules of other shapes are still expanded by rrule", () => {
    const others = [
      "FREQ=MONTHLY;BYMONTHDAY=31", // skips the shorter months
      "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO", // week start Monday, not the start date's weekday
      "FREQ=WEEKLY;INTERVAL=1;BYDAY=MO,TH;WKST=SU",
      "FREQ=DAILY;INTERVAL=2;UNTIL=20260401T120000Z",
      "FREQ=YEARLY;INTERVAL=1",
    ];
    for (const rrule of others) {
      expect(parseSimpleRule(rrule, new Date("2026-01-04T00:00:00Z")), rrule).to.equal(null);
      expect(occurrencesBetween(rrule, "2026-01-04", "2026-01-01", "2027-03-31"), rrule).to.deep.equal(
        rruleBetween(rrule, "2026-01-04", "2026-01-01", "2027-03-31", 1000),
      );
    }
  });
});
