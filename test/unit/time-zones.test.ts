import { expect } from "chai";
import fc from "fast-check";
import { todayInTimeZone } from "../../src/calendar/time-zones.js";

/** The day as a fresh formatter gives it: what todayInTimeZone must answer whatever it remembers. */
function freshDay(timeZone: string, at: Date): string {
  const parts = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).formatToParts(at);
  const part = (t: string) => parts.find((p) => p.type === t)!.value;
  return `${part("year").padStart(4, "0")}-${part("month")}-${part("day")}`;
}

describe("todayInTimeZone (the day remembered per zone and second)", () => {
  it("turns the day at midnight, to the millisecond, also within one remembered second", () => {
    expect(todayInTimeZone("UTC", new Date("2026-11-25T23:59:59.000Z"))).to.equal("2026-11-25");
    expect(todayInTimeZone("UTC", new Date("2026-11-25T23:59:59.999Z"))).to.equal("2026-11-25");
    expect(todayInTimeZone("UTC", new Date("2026-11-26T00:00:00.000Z"))).to.equal("2026-11-26");
    // Kathmandu is UTC+05:45: its midnight is 18:15 UTC.
    expect(todayInTimeZone("Asia/Kathmandu", new Date("2026-11-25T18:14:59.999Z"))).to.equal("2026-11-25");
    expect(todayInTimeZone("Asia/Kathmandu", new Date("2026-11-25T18:15:00.000Z"))).to.equal("2026-11-26");
  });

  it("answers each zone its own day in the same second", () => {
    const at = new Date("2026-11-25T23:30:00.500Z");
    expect(todayInTimeZone("Europe/Paris", at)).to.equal("2026-11-26");
    expect(todayInTimeZone("America/New_York", at)).to.equal("2026-11-25");
    expect(todayInTimeZone("Europe/Paris", at)).to.equal("2026-11-26");
  });

  it("still refuses an unknown zone and an invalid date", () => {
    expect(() => todayInTimeZone("Mars/Olympus", new Date())).to.throw();
    expect(() => todayInTimeZone("UTC", new Date(Number.NaN))).to.throw(RangeError);
  });

  it("agrees with a fresh formatter for any instant and zone, asked in any order", () => {
    const zones = ["UTC", "Europe/Paris", "America/St_Johns", "Asia/Kathmandu", "Pacific/Kiritimati", "Pacific/Pago_Pago", "Australia/Lord_Howe"];
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...zones), fc.integer({ min: Date.UTC(1971, 0, 1), max: Date.UTC(2099, 0, 1) }), fc.integer({ min: 0, max: 3 })), {
          minLength: 1,
          maxLength: 20,
        }),
        (asks) => {
          for (const [zone, ms, near] of asks) {
            // Near a remembered second on purpose: the same second, the next, or the previous.
            for (const at of [ms, ms + near * 250, ms - near * 400]) expect(todayInTimeZone(zone, new Date(at))).to.equal(freshDay(zone, new Date(at)));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
