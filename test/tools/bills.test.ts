/**
 * Bill reminders through the whole server: schedules expanded by list_bill_reminders against due dates
 * written by hand (the 31st in February, leap years, weekly and biweekly series, an end by count and by
 * date, a window across a year boundary), overdue and notice flags, the user's timezone, the writes and
 * their pipeline, and another user's ids.
 *
 * The handlers' clock is a variable the tests move; each test uses its own user so lists stay small.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

const key = () => randomUUID();
const usd = (minor: number) => ({ value: (minor / 100).toFixed(2), currency: "USD", minor });

describe(`bill reminders (${engine})`, function () {
  let server: TestServer;
  let clock = new Date("2026-03-15T12:00:00Z");
  const at = (iso: string) => {
    clock = new Date(iso);
  };

  before(async () => {
    server = await startTestServer({}, { now: () => clock });
  });
  after(async () => server?.close());
  beforeEach(() => at("2026-03-15T12:00:00Z")); // Sunday 2026-03-15 in UTC

  async function user(timezone = "UTC"): Promise<TestUser> {
    return server.createUser({ timezone, currency: "USD" });
  }
  async function bill(u: TestUser, p: Record<string, unknown>): Promise<any> {
    return (await server.call("create_bill_reminder", { amount: "10.00", idempotency_key: key(), ...p }, u.token)).bill_reminder;
  }
  async function dues(u: TestUser, billId: string, daysAhead: number): Promise<string[]> {
    const r = await server.call("list_bill_reminders", { days_ahead: daysAhead }, u.token);
    return r.upcoming.filter((o: any) => o.bill_reminder_id === billId).map((o: any) => o.due_date);
  }

  describe("schedules against dates written by hand", () => {
    it("monthly on the 31st falls on the last day of shorter months, February included, across the year boundary", async () => {
      const u = await user();
      const b = await bill(u, { name: "Rent", schedule: { frequency: "monthly", start_date: "2026-01-31", day_of_month: 31 } });
      expect(b.schedule).to.deep.equal({ frequency: "monthly", start_date: "2026-01-31", interval: 1, day_of_month: 31 });
      expect(b.schedule_text).to.equal("Every month on the 31st (the last day in shorter months), from 2026-01-31");
      expect(b.next_due_dates).to.deep.equal(["2026-03-31", "2026-04-30", "2026-05-31"]);
      // Window 2026-03-08 .. 2027-03-16 (366 days ahead of 2026-03-15).
      expect(await dues(u, b.id, 366)).to.deep.equal([
        "2026-03-31",
        "2026-04-30",
        "2026-05-31",
        "2026-06-30",
        "2026-07-31",
        "2026-08-31",
        "2026-09-30",
        "2026-10-31",
        "2026-11-30",
        "2026-12-31",
        "2027-01-31",
        "2027-02-28",
      ]);
    });

    it("leap years: the last day of February 2028 is the 29th; a yearly bill on February 29 falls on the 28th in 2027", async () => {
      const u = await user();
      const yearly = await bill(u, { name: "Leap insurance", schedule: { frequency: "yearly", start_date: "2024-02-29" } });
      expect(await dues(u, yearly.id, 366)).to.deep.equal(["2027-02-28"]);
      expect(yearly.next_due_dates).to.deep.equal(["2027-02-28", "2028-02-29", "2029-02-28"]);

      at("2028-02-20T12:00:00Z");
      const lastDay = await bill(u, { name: "Card", schedule: { frequency: "monthly", start_date: "2028-01-31", day_of_month: -1 } });
      expect(lastDay.next_due_dates).to.deep.equal(["2028-02-29", "2028-03-31", "2028-04-30"]);
      expect(await dues(u, lastDay.id, 40)).to.deep.equal(["2028-02-29", "2028-03-31"]);
      expect(await dues(u, yearly.id, 30)).to.deep.equal(["2028-02-29"]);
      const on31 = await bill(u, { name: "Gym", schedule: { frequency: "monthly", start_date: "2027-12-31" } });
      expect(on31.next_due_dates).to.deep.equal(["2028-02-29", "2028-03-31", "2028-04-30"]);
    });

    it("weekly on Friday, with last Friday shown as overdue", async () => {
      const u = await user();
      const b = await bill(u, { name: "Cleaner", schedule: { frequency: "weekly", start_date: "2026-03-02", weekday: "fri" } });
      expect(b.schedule_text).to.equal("Every week on Friday, from 2026-03-02");
      // Window 03-08..03-29: Fridays 03-13 (2 days ago), 03-20, 03-27.
      const r = await server.call("list_bill_reminders", { days_ahead: 14 }, u.token);
      expect(r.upcoming.map((o: any) => [o.due_date, o.days_until_due, o.overdue, o.in_notice_period])).to.deep.equal([
        ["2026-03-13", -2, true, false],
        ["2026-03-20", 5, false, false],
        ["2026-03-27", 12, false, false],
      ]);
    });

    it("biweekly from a Tuesday: every 14 days on Tuesday", async () => {
      const u = await user();
      const b = await bill(u, { name: "Payroll deduction", schedule: { frequency: "biweekly", start_date: "2026-03-03" } });
      expect(b.schedule_text).to.equal("Every 2 weeks on Tuesday, from 2026-03-03");
      // 03-03 is before the window (03-08..04-14); then 03-17, 03-31, 04-14.
      expect(await dues(u, b.id, 30)).to.deep.equal(["2026-03-17", "2026-03-31", "2026-04-14"]);
      // Biweekly on another weekday than the start: the first Friday on or after 03-03, then every 14 days.
      const f = await bill(u, { name: "Allowance", schedule: { frequency: "biweekly", start_date: "2026-03-03", weekday: "fri" } });
      expect(await dues(u, f.id, 30)).to.deep.equal(["2026-03-20", "2026-04-03"]);
      expect(f.next_due_dates).to.deep.equal(["2026-03-20", "2026-04-03", "2026-04-17"]);
    });

    it("series that started years ago: the dates of the window follow from the start date, counts included", async () => {
      const u = await user();
      const daily = await bill(u, { name: "Feed", schedule: { frequency: "daily", interval: 3, start_date: "2019-03-01" } });
      expect(await dues(u, daily.id, 10)).to.deep.equal(["2026-03-09", "2026-03-12", "2026-03-15", "2026-03-18", "2026-03-21", "2026-03-24"]);
      expect(daily.next_due_dates).to.deep.equal(["2026-03-15", "2026-03-18", "2026-03-21"]);
      // Every 5 months on the 31st from 2016-10-31: the 25th and last payment is 2026-10-31.
      const months = await bill(u, { name: "Loan", schedule: { frequency: "monthly", interval: 5, day_of_month: 31, start_date: "2016-10-31", count: 25 } });
      expect(await dues(u, months.id, 366)).to.deep.equal(["2026-05-31", "2026-10-31"]);
      expect(months.next_due_dates).to.deep.equal(["2026-05-31", "2026-10-31"]);
      // Every 6 weeks on Wednesday, counted from Saturday 2017-06-03 (first due Wednesday 2017-06-07).
      const weeks = await bill(u, { name: "Window cleaning", schedule: { frequency: "biweekly", interval: 3, weekday: "wed", start_date: "2017-06-03" } });
      expect(await dues(u, weeks.id, 60)).to.deep.equal(["2026-04-15"]);
      expect(weeks.next_due_dates).to.deep.equal(["2026-04-15", "2026-05-27", "2026-07-08"]);
      const leap = await bill(u, { name: "Olympics fund", schedule: { frequency: "yearly", interval: 4, start_date: "2012-02-29" } });
      expect(await dues(u, leap.id, 366)).to.deep.equal([]);
      expect(leap.next_due_dates).to.deep.equal(["2028-02-29", "2032-02-29", "2036-02-29"]);
      const quarters = await bill(u, { name: "Storage", schedule: { frequency: "quarterly", day_of_month: -1, start_date: "2015-11-30", end_date: "2026-05-31" } });
      expect(await dues(u, quarters.id, 366)).to.deep.equal(["2026-05-31"]);
      expect(quarters.next_due_dates).to.deep.equal(["2026-05-31"]);
    });

    it("an end by count: 4 monthly payments from 2026-01-15 end on 2026-04-15", async () => {
      const u = await user();
      const b = await bill(u, { name: "Installment", schedule: { frequency: "monthly", start_date: "2026-01-15", count: 4 } });
      expect(b.schedule_text).to.equal("Every month on the 15th, from 2026-01-15, 4 times");
      // 01-15, 02-15 are past; 03-15 is due today; 04-15 is the 4th and last.
      expect(b.next_due_dates).to.deep.equal(["2026-03-15", "2026-04-15"]);
      const r = await server.call("list_bill_reminders", { days_ahead: 366 }, u.token);
      expect(r.upcoming.map((o: any) => [o.due_date, o.days_until_due, o.in_notice_period, o.overdue])).to.deep.equal([
        ["2026-03-15", 0, true, false],
        ["2026-04-15", 31, false, false],
      ]);
    });

    it("an end by date: weekly on Monday until 2026-03-30 (inclusive)", async () => {
      const u = await user();
      const b = await bill(u, { name: "Course", schedule: { frequency: "weekly", start_date: "2026-03-02", end_date: "2026-03-30" } });
      expect(b.next_due_dates).to.deep.equal(["2026-03-16", "2026-03-23", "2026-03-30"]);
      expect(await dues(u, b.id, 90)).to.deep.equal(["2026-03-09", "2026-03-16", "2026-03-23", "2026-03-30"]);
      at("2026-04-10T12:00:00Z");
      expect(await dues(u, b.id, 90)).to.deep.equal([]); // 03-30 is more than 7 days ago
      expect((await server.call("list_bill_reminders", {}, u.token)).reminders[0].next_due_dates).to.deep.equal([]);
    });

    it("a window across the year boundary: weekly, monthly, quarterly and yearly bills seen from 2026-12-20", async () => {
      const u = await user();
      at("2026-12-20T12:00:00Z");
      const weekly = await bill(u, { name: "Box", schedule: { frequency: "weekly", start_date: "2026-10-01", weekday: "thu" } });
      const monthly = await bill(u, { name: "Phone", schedule: { frequency: "monthly", start_date: "2026-10-05" } });
      const quarterly = await bill(u, { name: "Water", schedule: { frequency: "quarterly", start_date: "2026-10-10" } });
      const yearly = await bill(u, { name: "Domain", schedule: { frequency: "yearly", start_date: "2025-01-02" } });
      // Window 2026-12-13 .. 2027-01-19.
      expect(await dues(u, weekly.id, 30)).to.deep.equal(["2026-12-17", "2026-12-24", "2026-12-31", "2027-01-07", "2027-01-14"]);
      expect(await dues(u, monthly.id, 30)).to.deep.equal(["2027-01-05"]);
      expect(await dues(u, quarterly.id, 30)).to.deep.equal(["2027-01-10"]);
      expect(await dues(u, yearly.id, 30)).to.deep.equal(["2027-01-02"]);
      const r = await server.call("list_bill_reminders", { days_ahead: 30 }, u.token);
      expect(r.upcoming.map((o: any) => `${o.due_date} ${o.name}`)).to.deep.equal([
        "2026-12-17 Box",
        "2026-12-24 Box",
        "2026-12-31 Box",
        "2027-01-02 Domain",
        "2027-01-05 Phone",
        "2027-01-07 Box",
        "2027-01-10 Water",
        "2027-01-14 Box",
      ]);
    });

    it("daily and once; the overdue window is exactly 7 days back", async () => {
      const u = await user();
      const daily = await bill(u, { name: "Parking", schedule: { frequency: "daily", start_date: "2026-03-01", interval: 2 } });
      // Every 2 days from 03-01 (odd days of March): window 03-08..03-17.
      expect(await dues(u, daily.id, 2)).to.deep.equal(["2026-03-09", "2026-03-11", "2026-03-13", "2026-03-15", "2026-03-17"]);
      const every = await bill(u, { name: "Coffee", schedule: { frequency: "daily", start_date: "2026-01-01" } });
      const r = await server.call("list_bill_reminders", { days_ahead: 1 }, u.token);
      const coffee = r.upcoming.filter((o: any) => o.bill_reminder_id === every.id);
      expect(coffee.map((o: any) => o.days_until_due)).to.deep.equal([-7, -6, -5, -4, -3, -2, -1, 0, 1]);
      const once = await bill(u, { name: "Passport", schedule: { frequency: "once", start_date: "2026-03-20" } });
      expect(once.schedule_text).to.equal("Once, on 2026-03-20");
      expect(once.next_due_dates).to.deep.equal(["2026-03-20"]);
      expect(await dues(u, once.id, 4)).to.deep.equal([]);
      expect(await dues(u, once.id, 5)).to.deep.equal(["2026-03-20"]);
    });
  });

  describe("occurrences", () => {
    it("carry the expected amount or the range, autopay, and the notice period (0 ≤ days ≤ notice_days)", async () => {
      const u = await user();
      const fixed = await bill(u, { name: "Rent", payee: "Oakwood Apartments", amount: "900.00", notice_days: 3, schedule: { frequency: "monthly", start_date: "2026-01-18" } });
      const variable = await bill(u, {
        name: "Electricity",
        amount: undefined,
        amount_min: "60.00",
        amount_max: "140.00",
        autopay: true,
        notice_days: 5,
        schedule: { frequency: "monthly", start_date: "2026-01-20" },
      });
      expect(variable).to.deep.include({ amount: null, amount_min: usd(6000), amount_max: usd(14000), autopay: true, notice_days: 5 });
      const r = await server.call("list_bill_reminders", { days_ahead: 5 }, u.token);
      expect(r.upcoming).to.deep.equal([
        { bill_reminder_id: fixed.id, name: "Rent", payee: "Oakwood Apartments", due_date: "2026-03-18", days_until_due: 3, expected_amount: usd(90000), amount_min: null, amount_max: null, autopay: false, in_notice_period: true, overdue: false },
        { bill_reminder_id: variable.id, name: "Electricity", payee: null, due_date: "2026-03-20", days_until_due: 5, expected_amount: null, amount_min: usd(6000), amount_max: usd(14000), autopay: true, in_notice_period: true, overdue: false },
      ]);
      const r4 = await server.call("list_bill_reminders", { days_ahead: 5 }, u.token);
      expect(r4.reminders.map((b: any) => b.name)).to.deep.equal(["Electricity", "Rent"]);
      // With notice_days 2 the rent due in 3 days is not in its notice period yet.
      await server.call("update_bill_reminder", { bill_reminder_id: fixed.id, notice_days: 2, idempotency_key: key() }, u.token);
      const after = await server.call("list_bill_reminders", { days_ahead: 5 }, u.token);
      expect(after.upcoming[0]).to.include({ due_date: "2026-03-18", in_notice_period: false });
    });

    it("are computed in the user's timezone: 12:00 UTC on 03-15 is already 03-16 in Kiritimati", async () => {
      const utc = await user("UTC");
      const kiri = await user("Pacific/Kiritimati");
      const sched = { frequency: "monthly", start_date: "2026-01-16" };
      await bill(utc, { name: "Insurance", schedule: sched });
      await bill(kiri, { name: "Insurance", schedule: sched });
      const a = await server.call("list_bill_reminders", { days_ahead: 1 }, utc.token);
      const b = await server.call("list_bill_reminders", { days_ahead: 1 }, kiri.token);
      expect(a.upcoming.map((o: any) => [o.due_date, o.days_until_due])).to.deep.equal([["2026-03-16", 1]]);
      expect(b.upcoming.map((o: any) => [o.due_date, o.days_until_due])).to.deep.equal([["2026-03-16", 0]]);
      expect(b.reminders[0].next_due_dates[0]).to.equal("2026-03-16");
    });

    it("inactive reminders give no occurrences and are listed only with include_inactive", async () => {
      const u = await user();
      const b = await bill(u, { name: "Streaming", schedule: { frequency: "monthly", start_date: "2026-03-16" } });
      const r = await server.call("update_bill_reminder", { bill_reminder_id: b.id, active: false, idempotency_key: key() }, u.token);
      expect(r.bill_reminder).to.deep.include({ active: false, next_due_dates: [] });
      expect(await server.call("list_bill_reminders", {}, u.token)).to.deep.equal({ upcoming: [], reminders: [] });
      const all = await server.call("list_bill_reminders", { include_inactive: true }, u.token);
      expect(all.upcoming).to.deep.equal([]);
      expect(all.reminders.map((x: any) => x.id)).to.deep.equal([b.id]);
      await server.call("update_bill_reminder", { bill_reminder_id: b.id, active: true, idempotency_key: key() }, u.token);
      expect(await dues(u, b.id, 32)).to.deep.equal(["2026-03-16", "2026-04-16"]);
    });
  });

  describe("create, update, delete", () => {
    it("refuses bad amounts, bad schedules, a schedule that never occurs, duplicate names and foreign wallets", async () => {
      const u = await user();
      const eur = (await server.call("create_wallet", { name: "Euro", type: "checking", currency: "EUR", idempotency_key: key() }, u.token)).wallet.id;
      await bill(u, { name: "Rent", schedule: { frequency: "monthly", start_date: "2026-01-01" } });
      const sched = { frequency: "monthly", start_date: "2026-01-01" };
      const cases: [Record<string, unknown>, string, string][] = [
        [{ name: "A", amount: "1.00", amount_min: "1.00", amount_max: "2.00", schedule: sched }, "invalid_params", "amount"],
        [{ name: "A", amount: undefined, schedule: sched }, "invalid_params", "amount"],
        [{ name: "A", amount: undefined, amount_min: "1.00", schedule: sched }, "invalid_params", "amount_max"],
        [{ name: "A", amount: undefined, amount_min: "3.00", amount_max: "2.00", schedule: sched }, "invalid_params", "amount_max"],
        [{ name: "A", amount: "0", schedule: sched }, "invalid_params", "amount"],
        [{ name: "A", schedule: { frequency: "weekly", start_date: "2026-01-01", day_of_month: 3 } }, "invalid_params", "schedule.day_of_month"],
        [{ name: "A", schedule: { frequency: "yearly", start_date: "2026-04-01", day_of_month: 31 } }, "invalid_params", "schedule.day_of_month"],
        [{ name: "A", schedule: { frequency: "monthly", start_date: "2026-01-01", count: 2, end_date: "2026-05-01" } }, "invalid_params", "schedule.count"],
        [{ name: "A", schedule: { frequency: "monthly", start_date: "2026-02-01", day_of_month: 31, end_date: "2026-02-20" } }, "invalid_params", "schedule.end_date"],
        [{ name: " RENT", schedule: sched }, "conflict", "name"],
        [{ name: "A", wallet_id: eur, currency: "USD", schedule: sched }, "invalid_params", "wallet_id"],
        [{ name: "A", wallet_id: "wal_0000000000000000000000", schedule: sched }, "not_found", "wallet_id"],
      ];
      for (const [params, code, field] of cases) {
        const err = await server.callError("create_bill_reminder", { amount: "10.00", idempotency_key: key(), ...params }, u.token);
        expect(err.data, JSON.stringify(params)).to.include({ code, field });
      }
      expect((await server.call("list_bill_reminders", { include_inactive: true }, u.token)).reminders).to.have.length(1);
      // A wallet sets the currency when none is given.
      const e = await bill(u, { name: "Miete", wallet_id: eur, amount: "700.00", schedule: sched });
      expect(e).to.deep.include({ currency: "EUR", wallet_id: eur, amount: { value: "700.00", currency: "EUR", minor: 70000 } });
    });

    it("update replaces the schedule, switches fixed ↔ variable, and removes fields with null", async () => {
      const u = await user();
      const b = await bill(u, { name: "Water", payee: "City", category: "Utilities", notes: "n", amount: "30.00", schedule: { frequency: "monthly", start_date: "2026-01-10" } });
      let r = await server.call("update_bill_reminder", { bill_reminder_id: b.id, amount_min: "20.00", amount_max: "50.00", payee: null, category: null, schedule: { frequency: "quarterly", start_date: "2026-02-28", day_of_month: -1 }, idempotency_key: key() }, u.token);
      expect(r.bill_reminder).to.deep.include({ amount: null, amount_min: usd(2000), amount_max: usd(5000), payee: null, category: null, notes: "n", name: "Water" });
      expect(r.bill_reminder.schedule).to.deep.equal({ frequency: "quarterly", start_date: "2026-02-28", interval: 1, day_of_month: -1 });
      expect(r.bill_reminder.next_due_dates).to.deep.equal(["2026-05-31", "2026-08-31", "2026-11-30"]);
      r = await server.call("update_bill_reminder", { bill_reminder_id: b.id, amount_max: "60.00", idempotency_key: key() }, u.token);
      expect(r.bill_reminder).to.deep.include({ amount_min: usd(2000), amount_max: usd(6000) });
      let err = await server.callError("update_bill_reminder", { bill_reminder_id: b.id, amount_max: "10.00", idempotency_key: key() }, u.token);
      expect(err.data).to.include({ code: "invalid_params", field: "amount_max" });
      r = await server.call("update_bill_reminder", { bill_reminder_id: b.id, amount: "35.00", idempotency_key: key() }, u.token);
      expect(r.bill_reminder).to.deep.include({ amount: usd(3500), amount_min: null, amount_max: null });
      err = await server.callError("update_bill_reminder", { bill_reminder_id: b.id, amount_min: "10.00", idempotency_key: key() }, u.token);
      expect(err.data).to.include({ code: "invalid_params", field: "amount_max" });
      err = await server.callError("update_bill_reminder", { bill_reminder_id: b.id, schedule: { frequency: "monthly" }, idempotency_key: key() }, u.token);
      expect(err.data.code).to.equal("invalid_params");
    });

    it("update keeps notice_days and autopay that the call does not mention", async function () {
      const u = await user();
      const b = await bill(u, { name: "Keeps", notice_days: 10, autopay: true, schedule: { frequency: "monthly", start_date: "2026-01-10" } });
      const r = await server.call("update_bill_reminder", { bill_reminder_id: b.id, name: "Kept", idempotency_key: key() }, u.token);
      expect(r.bill_reminder).to.include({ notice_days: 10, autopay: true });
    });

    it("replays a repeated key, leaves nothing after a dry run, and audits each committed write", async () => {
      const u = await user();
      const k = key();
      const params = { name: "Pipeline", amount: "5.00", schedule: { frequency: "weekly", start_date: "2026-03-02" }, idempotency_key: k };
      const first = await server.call("create_bill_reminder", params, u.token);
      const again = await server.call("create_bill_reminder", params, u.token);
      expect([first.status, again.status]).to.deep.equal(["committed", "replayed"]);
      expect(again.bill_reminder.id).to.equal(first.bill_reminder.id);
      expect(again.audit_id).to.equal(first.audit_id);
      expect(await server.db("bill_reminders").where({ user_id: u.id })).to.have.length(1);
      const err = await server.callError("create_bill_reminder", { ...params, name: "Other" }, u.token);
      expect(err.data.code).to.equal("idempotency_key_reused");

      const auditRows = async () => server.db("audit_log").where({ user_id: u.id }).orderBy("id");
      const dryCreate = await server.call("create_bill_reminder", { ...params, name: "Dry", idempotency_key: key(), dry_run: true }, u.token);
      const dryUpdate = await server.call("update_bill_reminder", { bill_reminder_id: first.bill_reminder.id, amount: "6.00", idempotency_key: key(), dry_run: true }, u.token);
      const dryDelete = await server.call("delete_bill_reminder", { bill_reminder_id: first.bill_reminder.id, idempotency_key: key(), dry_run: true }, u.token);
      expect([dryCreate, dryUpdate, dryDelete].map((r) => [r.status, r.audit_id])).to.deep.equal([["dry_run", null], ["dry_run", null], ["dry_run", null]]);
      expect(dryUpdate.bill_reminder.amount).to.deep.equal(usd(600));
      const rows = await server.db("bill_reminders").where({ user_id: u.id });
      expect(rows).to.have.length(1);
      expect(String(rows[0].amount_minor)).to.equal("500");
      expect(await auditRows()).to.have.length(1);

      const upd = await server.call("update_bill_reminder", { bill_reminder_id: first.bill_reminder.id, amount: "6.00", idempotency_key: key() }, u.token);
      const del = await server.call("delete_bill_reminder", { bill_reminder_id: first.bill_reminder.id, idempotency_key: key() }, u.token);
      expect(del.bill_reminder.amount).to.deep.equal(usd(600));
      const audit = await auditRows();
      expect(audit.map((r: any) => [String(r.id), r.tool, r.action, r.resource_type, r.resource_id])).to.deep.equal([
        [first.audit_id, "create_bill_reminder", "create", "bill_reminder", first.bill_reminder.id],
        [upd.audit_id, "update_bill_reminder", "update", "bill_reminder", first.bill_reminder.id],
        [del.audit_id, "delete_bill_reminder", "delete", "bill_reminder", first.bill_reminder.id],
      ]);
      expect(JSON.parse(audit[1].before_json).amount).to.deep.equal(usd(500));
      expect(JSON.parse(audit[2].before_json).name).to.equal("Pipeline");
      expect(await server.db("bill_reminders").where({ user_id: u.id })).to.have.length(0);
    });
  });

  describe("another user", () => {
    it("gets not_found with the first user's ids and sees none of their reminders; the first user's reminder is unchanged", async () => {
      const a = await user();
      const b = await user();
      const rent = await bill(a, { name: "Rent", schedule: { frequency: "monthly", start_date: "2026-01-20" } });
      const before = await server.db("bill_reminders").where({ id: rent.id }).first();
      for (const [tool, params] of [
        ["update_bill_reminder", { bill_reminder_id: rent.id, amount: "1.00", idempotency_key: key() }],
        ["update_bill_reminder", { bill_reminder_id: rent.id, active: false, idempotency_key: key(), dry_run: true }],
        ["delete_bill_reminder", { bill_reminder_id: rent.id, idempotency_key: key() }],
      ] as const) {
        const err = await server.callError(tool, params, b.token);
        expect(err.data, tool).to.include({ code: "not_found", field: "bill_reminder_id" });
      }
      const aWallet = (await server.call("create_wallet", { name: "A's", type: "cash", currency: "USD", idempotency_key: key() }, a.token)).wallet.id;
      const err = await server.callError("create_bill_reminder", { name: "X", amount: "1.00", wallet_id: aWallet, schedule: { frequency: "once", start_date: "2026-04-01" }, idempotency_key: key() }, b.token);
      expect(err.data).to.include({ code: "not_found", field: "wallet_id" });
      expect(await server.call("list_bill_reminders", { include_inactive: true }, b.token)).to.deep.equal({ upcoming: [], reminders: [] });
      await bill(b, { name: "Rent", schedule: { frequency: "monthly", start_date: "2026-01-20" } }); // names are per user
      expect(await server.db("bill_reminders").where({ id: rent.id }).first()).to.deep.equal(before);
      expect((await server.call("list_bill_reminders", {}, a.token)).reminders.map((r: any) => r.id)).to.deep.equal([rent.id]);
    });
  });
});
