/**
 * Budgets through the whole server on a fixed data set whose expected figures are worked out by hand
 * below: spending inside and outside the scope (category, tag, wallet, currency, income, transfer, dates
 * after as_of), a rollover chain, period boundaries, anchors, a short first period, and a user whose
 * timezone (Pacific/Kiritimati, UTC+14) puts "today" on another day than UTC.
 *
 * The clock is fixed at 2026-03-15T12:00:00Z: 2026-03-15 (a Sunday) in UTC, 2026-03-16 (a Monday) in
 * Kiritimati.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { budgetsPushedOverLimit } from "../../src/domain/budgets/over-limit.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

const NOW = new Date("2026-03-15T12:00:00Z");
const key = () => randomUUID();
const usd = (minor: number) => ({ value: (minor / 100).toFixed(2), currency: "USD", minor });

describe(`budgets (${engine})`, function () {
  let server: TestServer;
  let alice: TestUser; // Pacific/Kiritimati
  let bob: TestUser; // UTC, the other user of the cross-user checks
  let checking: string; // USD
  let card: string; // USD
  let euro: string; // EUR
  const ids = {} as Record<"groceries" | "dining" | "tight" | "trip" | "all" | "mid" | "late" | "old", string>;

  async function wallet(user: TestUser, name: string, currency: string): Promise<string> {
    const r = await server.call("create_wallet", { name, type: "checking", currency, idempotency_key: key() }, user.token);
    return r.wallet.id;
  }
  async function txn(user: TestUser, p: Record<string, unknown>): Promise<string> {
    const r = await server.call("create_transaction", { idempotency_key: key(), ...p }, user.token);
    return r.transaction.id;
  }
  async function budget(user: TestUser, p: Record<string, unknown>): Promise<any> {
    return (await server.call("create_budget", { idempotency_key: key(), ...p }, user.token)).budget;
  }
  async function status(user: TestUser, budgetId: string, asOf?: string): Promise<any> {
    const r = await server.call("get_budget_status", { budget_id: budgetId, ...(asOf ? { as_of: asOf } : {}) }, user.token);
    expect(r.budgets).to.have.length(1);
    return r.budgets[0];
  }

  before(async () => {
    server = await startTestServer({}, { now: () => NOW });
    alice = await server.createUser({ timezone: "Pacific/Kiritimati", currency: "USD" });
    bob = await server.createUser({ timezone: "UTC", currency: "USD" });
    checking = await wallet(alice, "Checking", "USD");
    card = await wallet(alice, "Card", "USD");
    euro = await wallet(alice, "Euro account", "EUR");

    const e = (date: string, amount: string, category: string | null, wallet_id: string, tags?: string[]) =>
      txn(alice, { wallet_id, date, amount, direction: "expense", ...(category ? { category } : {}), ...(tags ? { tags } : {}) });
    // February
    await e("2026-02-03", "120.00", "Groceries", checking); // t1
    await e("2026-02-20", "80.00", "Groceries", card); // t2
    await e("2026-02-28", "50.00", "Dining", checking); // t3  (last day of February)
    await e("2026-02-28", "31.00", "Groceries", checking); // t12 (last day of February)
    // March
    await e("2026-03-01", "45.50", "Groceries", checking, ["weekly"]); // t4  (first day of March)
    await e("2026-03-10", "30.00", "groceries", card, ["Trip"]); // t5  (category in other case)
    await e("2026-03-16", "25.00", "Groceries", checking); // t6  (today in Kiritimati)
    await e("2026-03-17", "99.99", "Groceries", checking); // t7  (after today: not spent yet)
    // t8: an income filed where the person never spends is no refund, and income never counts (a refund
    // would: test/ledger/splits-refunds.test.ts).
    await txn(alice, { wallet_id: checking, date: "2026-03-05", amount: "200.00", direction: "income", category: "Salary" });
    await e("2026-03-12", "70.00", "Dining", checking, ["trip"]); // t9
    await e("2026-03-12", "15.00", "Groceries", euro); // t10 (EUR)
    await txn(alice, { wallet_id: checking, to_wallet_id: card, date: "2026-03-08", amount: "100.00", direction: "transfer" }); // t11 transfer
    await e("2026-03-31", "12.00", "Groceries", card); // t13 (last day of March)
    await e("2026-04-01", "8.00", "Groceries", checking); // t14 (first day of April)

    ids.groceries = (await budget(alice, { name: "Groceries", amount: "400.00", period: "month", categories: ["Groceries"], start_date: "2026-01-01" })).id;
    ids.dining = (await budget(alice, { name: "Dining", amount: "100.00", period: "month", categories: ["Dining"], start_date: "2026-02-01", rollover: "carry_unspent" })).id;
    ids.tight = (await budget(alice, { name: "Dining (tight)", amount: "30.00", period: "month", categories: ["DINING"], start_date: "2026-02-01", rollover: "carry_unspent" })).id;
    ids.trip = (await budget(alice, { name: "Trip on the card", amount: "50.00", period: "week", tags: ["TRIP"], wallet_ids: [card], start_date: "2026-03-02" })).id;
    ids.all = (await budget(alice, { name: "Everything", amount: "1000.00", period: "month", start_date: "2026-03-01" })).id;
    ids.mid = (await budget(alice, { name: "Mid-month groceries", amount: "200.00", period: "month", anchor_date: "2026-01-15", categories: ["Groceries"], start_date: "2026-01-15" })).id;
    ids.late = (await budget(alice, { name: "Late start", amount: "100.00", period: "month", categories: ["Groceries"], start_date: "2026-03-10" })).id;
    ids.old = (await budget(alice, { name: "Last year", amount: "10.00", period: "year", start_date: "2025-01-01", end_date: "2025-12-31" })).id;
  });
  after(async () => server?.close());

  describe("status against figures worked out by hand", () => {
    it("Groceries, default as_of = today in Kiritimati (2026-03-16): 3 in-scope expenses of March up to today", async () => {
      // In scope on 03-01..03-16: t4 45.50 + t5 30.00 ("groceries") + t6 25.00 = 100.50, 3 transactions.
      // Out: t7 (03-17, after today), t8 (income), t9 (Dining), t10 (EUR), t11 (transfer), February.
      const r = await server.call("get_budget_status", { budget_id: ids.groceries }, alice.token);
      expect(r.as_of).to.equal("2026-03-16");
      expect(r.budgets[0]).to.deep.equal({
        budget_id: ids.groceries,
        name: "Groceries",
        period_start: "2026-03-01",
        period_end: "2026-03-31",
        limit: usd(40000),
        spent: usd(10050),
        remaining: usd(29950), // 400.00 − 100.50
        carried_in: usd(0),
        utilization: 0.2513, // 10050 / 40000 = 0.25125 → half up to 4 decimals
        percent_elapsed: 51.61, // 16 / 31 days
        pace: "under", // 25.125 % < 51.61 − 5
        projected_spend: usd(19472), // 10050 × 31 / 16 = 19471.875 → 19472
        transaction_count: 3,
        over_budget: false,
        alert: false, // 25.125 % < 80 %
      });
    });

    it("Groceries on the last day of February: the whole month, 100% elapsed", async () => {
      // t1 120.00 + t2 80.00 + t12 31.00 (02-28) = 231.00.
      const s = await status(alice, ids.groceries, "2026-02-28");
      expect(s).to.include({ period_start: "2026-02-01", period_end: "2026-02-28", utilization: 0.5775, percent_elapsed: 100, pace: "under", transaction_count: 3 });
      expect(s.spent).to.deep.equal(usd(23100));
      expect(s.remaining).to.deep.equal(usd(16900));
      expect(s.projected_spend).to.deep.equal(usd(23100));
    });

    it("Groceries on the last day of March counts 03-17 and 03-31, and the first day of April starts afresh", async () => {
      // March: 100.50 + t7 99.99 + t13 12.00 = 212.49, 5 transactions.
      const march = await status(alice, ids.groceries, "2026-03-31");
      expect(march).to.include({ period_start: "2026-03-01", period_end: "2026-03-31", transaction_count: 5, utilization: 0.5312, percent_elapsed: 100 });
      expect(march.spent).to.deep.equal(usd(21249));
      // April 1st: t14 8.00 only; 1 of 30 days (3.33 %), 2 % used: within 5 points → on_track.
      const april = await status(alice, ids.groceries, "2026-04-01");
      expect(april).to.include({ period_start: "2026-04-01", period_end: "2026-04-30", transaction_count: 1, utilization: 0.02, percent_elapsed: 3.33, pace: "on_track" });
      expect(april.spent).to.deep.equal(usd(800));
      // One charge is all of it: counted once, not extrapolated to 240.00 (800 × 30 / 1), and named.
      expect(april.projected_spend).to.deep.equal(usd(800));
      expect(april.single_charge).to.deep.equal(usd(800));
      expect(april.carried_in).to.deep.equal(usd(0)); // rollover none
    });

    it("Dining with carry_unspent: February's unspent 50.00 is carried into March, March's 80.00 into April", async () => {
      // February: limit 100.00, spent t3 50.00 → carries 50.00. March up to 03-16: t9 70.00 of 150.00.
      const march = await status(alice, ids.dining, "2026-03-16");
      expect(march).to.deep.include({
        limit: usd(10000),
        carried_in: usd(5000),
        spent: usd(7000),
        remaining: usd(8000), // 100 + 50 − 70
        utilization: 0.4667, // 7000 / 15000
        percent_elapsed: 51.61,
        // t9 70.00 is the only charge: counted once (not 7000 × 31 / 16 = 135.63), so 70.00 of 150.00 projected
        // and 46.67 % spent with 51.61 % elapsed is more than 5 points of the projection below: under.
        pace: "under",
        projected_spend: usd(7000),
        single_charge: usd(7000),
        transaction_count: 1,
        over_budget: false,
        alert: false,
      });
      // April: March left 100 + 50 − 70 = 80.00 unspent → carried in; nothing spent on Dining in April.
      const april = await status(alice, ids.dining, "2026-04-01");
      expect(april.carried_in).to.deep.equal(usd(8000));
      expect(april.remaining).to.deep.equal(usd(18000));
      expect(april.spent).to.deep.equal(usd(0));
      expect(april.pace).to.equal("on_track"); // 0 % vs 3.33 % elapsed: within 5 points
      // The first period has nothing to carry.
      expect((await status(alice, ids.dining, "2026-02-28")).carried_in).to.deep.equal(usd(0));
    });

    it("overspending is not carried: 'Dining (tight)' (30.00) overspent in February starts March with 0 carried", async () => {
      // February: 50.00 of 30.00 → carry max(0, −20.00) = 0. March: 70.00 of 30.00.
      const s = await status(alice, ids.tight, "2026-03-16");
      expect(s).to.deep.include({
        carried_in: usd(0),
        spent: usd(7000),
        remaining: usd(-4000),
        utilization: 2.3333,
        pace: "over",
        over_budget: true,
        alert: true,
      });
    });

    it("tags and wallets narrow together: only t5 (tag Trip, card) counts for 'Trip on the card'", async () => {
      // Weeks start on Monday (anchor defaults to the Monday of start_date's week, 2026-03-02).
      // Week 03-09..03-15: t5 30.00 (tag "Trip", card). t9 has tag "trip" but is on checking: out.
      const s = await status(alice, ids.trip, "2026-03-15");
      expect(s).to.deep.include({ period_start: "2026-03-09", period_end: "2026-03-15", spent: usd(3000), utilization: 0.6, percent_elapsed: 100, transaction_count: 1, alert: false });
      // Today in Kiritimati is Monday 2026-03-16: a new week with nothing spent yet.
      const today = (await server.call("get_budget_status", { budget_id: ids.trip }, alice.token)).budgets[0];
      expect(today).to.deep.include({ period_start: "2026-03-16", period_end: "2026-03-22", spent: usd(0), percent_elapsed: 14.29, transaction_count: 0 });
    });

    it("an empty scope counts every expense in the currency, and nothing else", async () => {
      // 03-01..03-16 USD expenses: t4 45.50 + t5 30.00 + t9 70.00 + t6 25.00 = 170.50 (not t8 income, t10 EUR, t11 transfer).
      const s = await status(alice, ids.all, "2026-03-16");
      expect(s.spent).to.deep.equal(usd(17050));
      expect(s.transaction_count).to.equal(4);
      expect(s.utilization).to.equal(0.1705);
    });

    it("an anchor on the 15th makes periods run from the 15th to the 14th", async () => {
      // Period 03-15..04-14 (31 days); up to 03-16: t6 25.00. 2 days elapsed = 6.45 %; 12.5 % used, but the
      // one charge is counted once (not 2500 × 31 / 2 = 387.50): 25.00 projected of 200.00 → under.
      const s = await status(alice, ids.mid, "2026-03-16");
      expect(s).to.deep.include({ period_start: "2026-03-15", period_end: "2026-04-14", spent: usd(2500), utilization: 0.125, percent_elapsed: 6.45, pace: "under", projected_spend: usd(2500) });
      // The day before belongs to the previous period (02-15..03-14): t2 80.00 (02-20) + t12 31.00 (02-28)
      // + t4 45.50 (03-01) + t5 30.00 (03-10) = 186.50.
      const before = await status(alice, ids.mid, "2026-03-14");
      expect(before).to.deep.include({ period_start: "2026-02-15", period_end: "2026-03-14", spent: usd(18650), transaction_count: 4 });
    });

    it("a budget starting mid-period has a short first period from its start date", async () => {
      // Starts 03-10 (anchor 03-01): period 03-10..03-31 (22 days); t4 (03-01) is before the start.
      // Up to 03-16: t5 30.00 + t6 25.00 = 55.00 of 100.00; 7/22 days = 31.82 %; 55 % → over.
      const s = await status(alice, ids.late, "2026-03-16");
      expect(s).to.deep.include({ period_start: "2026-03-10", period_end: "2026-03-31", spent: usd(5500), percent_elapsed: 31.82, pace: "over", projected_spend: usd(17286) });
    });

    it("a UTC user on the same instant is still on Sunday 2026-03-15", async () => {
      const w = await wallet(bob, "Wallet", "USD");
      await txn(bob, { wallet_id: w, date: "2026-03-15", amount: "10.00", direction: "expense" });
      const b = await budget(bob, { name: "Weekly", amount: "70.00", period: "week", start_date: "2026-03-02" });
      const r = await server.call("get_budget_status", {}, bob.token);
      expect(r.as_of).to.equal("2026-03-15");
      expect(r.budgets).to.have.length(1);
      expect(r.budgets[0]).to.deep.include({ budget_id: b.id, period_start: "2026-03-09", period_end: "2026-03-15", spent: usd(1000), percent_elapsed: 100 });
    });

    it("get_budget_status without budget_id lists the budgets active on as_of; list_budgets shows status only for active ones", async () => {
      const r = await server.call("get_budget_status", {}, alice.token);
      const names = r.budgets.map((s: { name: string }) => s.name);
      expect(names).to.not.include("Last year");
      expect(names).to.include.members(["Groceries", "Dining", "Trip on the card", "Late start"]);
      const old = await server.call("get_budget_status", { as_of: "2025-06-30" }, alice.token);
      expect(old.budgets.map((s: { name: string }) => s.name)).to.deep.equal(["Last year"]);

      const list = await server.call("list_budgets", {}, alice.token);
      const byName = new Map(list.budgets.map((b: any) => [b.name, b]));
      expect((byName.get("Last year") as any).status).to.equal(undefined);
      expect((byName.get("Groceries") as any).status.spent).to.deep.equal(usd(10050));
      const bare = await server.call("list_budgets", { include_status: false }, alice.token);
      expect(bare.budgets.every((b: any) => b.status === undefined)).to.equal(true);
      expect(bare.budgets.length).to.equal(list.budgets.length);
    });

    it("refuses an as_of outside the budget's dates", async () => {
      const err = await server.callError("get_budget_status", { budget_id: ids.old }, alice.token);
      expect(err.data).to.include({ code: "invalid_params", field: "as_of" });
    });
  });

  describe("create, update, delete", () => {
    it("defaults: currency from the user, anchor and start at the current calendar period, rollover none, alert 80", async () => {
      const b = await budget(alice, { name: "Quarterly", amount: "900.00", period: "quarter" });
      expect(b).to.deep.include({ currency: "USD", anchor_date: "2026-01-01", start_date: "2026-01-01", end_date: null, rollover: "none", alert_threshold: 80, interval: 1, notes: null });
      expect(b.status).to.include({ period_start: "2026-01-01", period_end: "2026-03-31" });
      // An anchor without a start date: the start is the anchored period containing today (2026-03-16).
      const f = await budget(alice, { name: "Fortnight", amount: "100.00", period: "week", interval: 2, anchor_date: "2026-01-05" });
      expect(f).to.include({ anchor_date: "2026-01-05", start_date: "2026-03-16" });
      expect(f.status).to.include({ period_start: "2026-03-16", period_end: "2026-03-29" });
    });

    it("refuses a duplicate name case-insensitively, an end before the start, a zero amount and a foreign-currency wallet", async () => {
      let err = await server.callError("create_budget", { name: "  groceries ", amount: "1.00", period: "month", idempotency_key: key() }, alice.token);
      expect(err.data).to.include({ code: "conflict", field: "name", existing_id: ids.groceries });
      err = await server.callError("create_budget", { name: "X", amount: "1.00", period: "month", start_date: "2026-03-01", end_date: "2026-02-28", idempotency_key: key() }, alice.token);
      expect(err.data).to.include({ code: "invalid_params", field: "end_date" });
      err = await server.callError("create_budget", { name: "X", amount: "0.00", period: "month", idempotency_key: key() }, alice.token);
      expect(err.data).to.include({ code: "invalid_params", field: "amount" });
      err = await server.callError("create_budget", { name: "X", amount: "1.001", period: "month", idempotency_key: key() }, alice.token);
      expect(err.data).to.include({ code: "invalid_params", field: "amount" });
      err = await server.callError("create_budget", { name: "X", amount: "1.00", period: "month", wallet_ids: [euro], idempotency_key: key() }, alice.token);
      expect(err.data).to.include({ code: "invalid_params", field: "wallet_ids[0]" });
      err = await server.callError("create_budget", { name: "X", amount: "1.00", period: "month", wallet_ids: ["wal_doesnotexist000000000"], idempotency_key: key() }, alice.token);
      expect(err.data).to.include({ code: "not_found", field: "wallet_ids[0]" });
      expect(await server.db("budgets").where({ user_id: alice.id, name: "X" })).to.have.length(0);
    });

    it("update changes only what is given, replaces lists, removes the end with null, and recomputes the status", async () => {
      const b = await budget(alice, { name: "Editable", amount: "100.00", period: "month", categories: ["Groceries", "Dining"], end_date: "2026-12-31", notes: "first" });
      const r = await server.call("update_budget", { budget_id: b.id, amount: "250.00", categories: ["Dining"], end_date: null, idempotency_key: key() }, alice.token);
      expect(r.status).to.equal("committed");
      expect(r.budget).to.deep.include({ id: b.id, name: "Editable", categories: ["Dining"], end_date: null, notes: "first", amount: usd(25000), created_at: b.created_at });
      expect(r.budget.status.spent).to.deep.equal(usd(7000)); // t9, March up to 03-16
      let err = await server.callError("update_budget", { budget_id: b.id, name: "GROCERIES", idempotency_key: key() }, alice.token);
      expect(err.data).to.include({ code: "conflict", field: "name" });
      err = await server.callError("update_budget", { budget_id: b.id, end_date: "2025-01-01", idempotency_key: key() }, alice.token);
      expect(err.data).to.include({ code: "invalid_params", field: "end_date" });
      // Renaming to its own name in another case is fine.
      const same = await server.call("update_budget", { budget_id: b.id, name: "EDITABLE", idempotency_key: key() }, alice.token);
      expect(same.budget.name).to.equal("EDITABLE");
    });

    it("update keeps interval and alert_threshold that the call does not mention", async function () {
      const b = await budget(alice, { name: "Keeps fields", amount: "100.00", period: "week", interval: 2, alert_threshold: 95 });
      const r = await server.call("update_budget", { budget_id: b.id, amount: "120.00", idempotency_key: key() }, alice.token);
      expect(r.budget).to.include({ interval: 2, alert_threshold: 95 });
    });

    it("delete removes the definition only and answers its snapshot without status", async () => {
      const b = await budget(alice, { name: "Short-lived", amount: "5.00", period: "month" });
      const before = await server.db("transactions").where({ user_id: alice.id }).count({ n: "*" });
      const r = await server.call("delete_budget", { budget_id: b.id, idempotency_key: key() }, alice.token);
      expect(r.status).to.equal("committed");
      expect(r.budget.id).to.equal(b.id);
      expect(r.budget.status).to.equal(undefined);
      expect(await server.db("budgets").where({ id: b.id })).to.have.length(0);
      expect(await server.db("transactions").where({ user_id: alice.id }).count({ n: "*" })).to.deep.equal(before);
      const err = await server.callError("get_budget_status", { budget_id: b.id }, alice.token);
      expect(err.data).to.include({ code: "not_found", field: "budget_id" });
    });
  });

  describe("the write pipeline", () => {
    it("replays a repeated key, leaves nothing after a dry run, and audits each committed write", async () => {
      const k = key();
      const params = { name: "Pipeline", amount: "60.00", period: "month", idempotency_key: k };
      const first = await server.call("create_budget", params, alice.token);
      const again = await server.call("create_budget", params, alice.token);
      expect(first.status).to.equal("committed");
      expect(again.status).to.equal("replayed");
      expect(again.budget.id).to.equal(first.budget.id);
      expect(again.audit_id).to.equal(first.audit_id);
      expect(await server.db("budgets").where({ user_id: alice.id, name: "Pipeline" })).to.have.length(1);
      const audit = await server.db("audit_log").where({ id: first.audit_id }).first();
      expect(audit).to.include({ user_id: alice.id, tool: "create_budget", action: "create", resource_type: "budget", resource_id: first.budget.id, idempotency_key: k });
      expect(JSON.parse(audit.after_json)).to.deep.include({ id: first.budget.id, name: "Pipeline" });

      const auditCount = async () => Number((await server.db("audit_log").where({ user_id: alice.id }).count({ n: "*" }))[0]!.n);
      const n = await auditCount();
      const dry = await server.call("create_budget", { name: "Dry", amount: "1.00", period: "month", idempotency_key: key(), dry_run: true }, alice.token);
      expect(dry).to.include({ status: "dry_run", audit_id: null });
      expect(dry.budget.name).to.equal("Dry");
      const dryUpdate = await server.call("update_budget", { budget_id: first.budget.id, amount: "61.00", idempotency_key: key(), dry_run: true }, alice.token);
      expect(dryUpdate.budget.amount).to.deep.equal(usd(6100));
      const dryDelete = await server.call("delete_budget", { budget_id: first.budget.id, idempotency_key: key(), dry_run: true }, alice.token);
      expect(dryDelete.status).to.equal("dry_run");
      expect(await server.db("budgets").where({ user_id: alice.id, name: "Dry" })).to.have.length(0);
      const stored = await server.db("budgets").where({ id: first.budget.id }).first();
      expect(String(stored.amount_minor)).to.equal("6000");
      expect(await auditCount()).to.equal(n);

      const upd = await server.call("update_budget", { budget_id: first.budget.id, amount: "61.00", idempotency_key: key() }, alice.token);
      const del = await server.call("delete_budget", { budget_id: first.budget.id, idempotency_key: key() }, alice.token);
      const rows = await server.db("audit_log").whereIn("id", [upd.audit_id, del.audit_id]).orderBy("id");
      expect(rows.map((r: any) => [r.action, r.resource_id])).to.deep.equal([["update", first.budget.id], ["delete", first.budget.id]]);
      expect(JSON.parse(rows[0].before_json).amount).to.deep.equal(usd(6000));
      expect(JSON.parse(rows[0].after_json).amount).to.deep.equal(usd(6100));
      expect(JSON.parse(rows[1].before_json).name).to.equal("Pipeline");
      expect(rows[1].after_json).to.equal(null);
    });
  });

  describe("another user", () => {
    it("gets not_found for every budget tool with the first user's ids, and the first user's budget is unchanged", async () => {
      const before = await server.db("budgets").where({ id: ids.groceries }).first();
      for (const [tool, params] of [
        ["get_budget_status", { budget_id: ids.groceries }],
        ["update_budget", { budget_id: ids.groceries, amount: "1.00", idempotency_key: key() }],
        ["delete_budget", { budget_id: ids.groceries, idempotency_key: key() }],
        ["delete_budget", { budget_id: ids.groceries, idempotency_key: key(), dry_run: true }],
      ] as const) {
        const err = await server.callError(tool, params, bob.token);
        expect(err.data, tool).to.include({ code: "not_found", field: "budget_id" });
      }
      const err = await server.callError("create_budget", { name: "Mine", amount: "1.00", period: "month", wallet_ids: [checking], idempotency_key: key() }, bob.token);
      expect(err.data).to.include({ code: "not_found", field: "wallet_ids[0]" });
      // Names are per user: bob may use alice's budget name.
      await budget(bob, { name: "Groceries", amount: "1.00", period: "month" });
      const list = await server.call("list_budgets", {}, bob.token);
      expect(list.budgets.map((b: any) => b.name).sort()).to.deep.equal(["Groceries", "Weekly"]);
      expect(list.budgets.some((b: any) => b.id === ids.groceries)).to.equal(false);
      const status = await server.call("get_budget_status", {}, bob.token);
      expect(status.budgets.some((s: any) => s.budget_id === ids.groceries)).to.equal(false);
      expect(await server.db("budgets").where({ id: ids.groceries }).first()).to.deep.equal(before);
    });
  });

  describe("budget_over_limit for the ledger's writes", () => {
    it("names the budgets an expense pushes over their limit, judged on the whole period", async () => {
      // March in scope of Groceries so far: 212.49 (t4, t5, t6, t7, t13). "Ceiling" allows 215.00.
      await budget(alice, { name: "Ceiling", amount: "215.00", period: "month", categories: ["groceries"], start_date: "2026-03-01" });
      await txn(alice, { wallet_id: checking, date: "2026-03-02", amount: "5.00", direction: "expense", category: "Groceries" });
      // Back-dated to 03-02, yet 03-17 and 03-31 count: 217.49 > 215.00, and 212.49 was not over.
      const expense = { date: "2026-03-02", currency: "USD", amountMinor: 500n, walletId: checking, category: "GROCERIES", tags: [] };
      const warnings = await budgetsPushedOverLimit(server.db, alice.id, expense);
      expect(warnings.map((w) => w.code)).to.deep.equal(["budget_over_limit"]);
      expect(warnings[0]!.message).to.contain('"Ceiling"').and.contain("217.49").and.contain("215.00");
      // The next expense finds it over already: no new warning. Out of scope or another user: none.
      await txn(alice, { wallet_id: checking, date: "2026-03-03", amount: "1.00", direction: "expense", category: "Groceries" });
      expect(await budgetsPushedOverLimit(server.db, alice.id, { ...expense, date: "2026-03-03", amountMinor: 100n })).to.deep.equal([]);
      expect(await budgetsPushedOverLimit(server.db, alice.id, { ...expense, category: "Dining" })).to.deep.equal([]);
      expect(await budgetsPushedOverLimit(server.db, bob.id, expense)).to.deep.equal([]);
    });
  });
});
