/**
 * Savings goals through the whole server: progress figures worked out by hand (percent, months left,
 * needed per month rounded up, on_track over the last 90 days with its boundary), exact contribution
 * sums, withdrawals that may not go below zero, the achieved status, contributions from a wallet
 * recorded atomically with their transaction, the write pipeline and another user's ids.
 *
 * The clock is fixed at 2026-03-15T12:00:00Z; the users are in UTC unless said otherwise.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { withFailingInsert } from "../helpers/forced-failure.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

const NOW = new Date("2026-03-15T12:00:00Z");
const key = () => randomUUID();
const usd = (minor: number) => ({ value: (minor / 100).toFixed(2), currency: "USD", minor });

describe(`goals (${engine})`, function () {
  let server: TestServer;
  let alice: TestUser;
  let bob: TestUser;

  before(async () => {
    server = await startTestServer({}, { now: () => NOW });
    alice = await server.createUser({ currency: "USD" });
    bob = await server.createUser({ currency: "USD" });
  });
  after(async () => server?.close());

  async function goal(u: TestUser, p: Record<string, unknown>): Promise<any> {
    return (await server.call("create_goal", { idempotency_key: key(), ...p }, u.token)).goal;
  }
  async function fund(u: TestUser, goalId: string, amount: string, p: Record<string, unknown> = {}): Promise<any> {
    return server.call("add_goal_funds", { goal_id: goalId, amount, idempotency_key: key(), ...p }, u.token);
  }
  async function progress(u: TestUser, goalId: string): Promise<any> {
    const r = await server.call("get_goal_progress", { goal_id: goalId }, u.token);
    expect(r.as_of).to.equal("2026-03-15");
    return r.goals[0];
  }
  async function wallet(u: TestUser, name: string, currency = "USD", opening = "1000.00"): Promise<string> {
    return (await server.call("create_wallet", { name, type: "checking", currency, opening_balance: opening, idempotency_key: key() }, u.token)).wallet.id;
  }
  async function balance(u: TestUser, walletId: string): Promise<any> {
    const r = await server.call("list_wallets", {}, u.token);
    return r.wallets.find((w: any) => w.id === walletId).balance;
  }

  describe("progress against figures worked out by hand", () => {
    it("Emergency fund: 25 %, 9.5 months left, 789.48 a month needed, on track, newest contributions first", async () => {
      const g = await goal(alice, { name: "Emergency fund", target_amount: "10000.00", target_date: "2026-12-31" });
      expect(g).to.deep.include({ status: "active", saved: usd(0), currency: "USD", achieved_at: null, target_amount: usd(1000000) });
      await fund(alice, g.id, "1000.00", { date: "2026-01-05", note: "Starting amount" });
      await fund(alice, g.id, "750.00", { date: "2026-02-01", note: "February" });
      await fund(alice, g.id, "750.00", { date: "2026-03-01", note: "March" });
      const p = await progress(alice, g.id);
      expect(p).to.deep.include({
        goal_id: g.id,
        name: "Emergency fund",
        status: "active",
        saved: usd(250000),
        remaining: usd(750000),
        percent: 25,
        target_date: "2026-12-31",
        months_left: 9.5, // 291 days / 30.4375 = 9.56 → 9.5
        needed_per_month: usd(78948), // 7500.00 / 9.5 = 789.4736… → up to 789.48
        on_track: true, // 2500.00 in the last 90 days / 3 = 833.33 ≥ 789.48
      });
      expect(p.recent_contributions.map((c: any) => [c.date, c.amount.value, c.note, c.from_wallet_id, c.transaction_id])).to.deep.equal([
        ["2026-03-01", "750.00", "March", null, null],
        ["2026-02-01", "750.00", "February", null, null],
        ["2026-01-05", "1000.00", "Starting amount", null, null],
      ]);
    });

    it("Car: 18.33 %, 6.0 months, 816.67 a month needed (rounded up), off track", async () => {
      const g = await goal(alice, { name: "Car", target_amount: "6000.00", target_date: "2026-09-15" });
      await fund(alice, g.id, "500.00", { date: "2025-12-01" }); // older than 90 days
      await fund(alice, g.id, "300.00", { date: "2026-01-10" });
      await fund(alice, g.id, "300.00", { date: "2026-03-10" });
      const p = await progress(alice, g.id);
      // saved 1100.00; remaining 4900.00; 184 days / 30.4375 = 6.04 → 6.0; 4900 / 6 = 816.666… → 816.67.
      // Recent: 600.00 / 3 = 200.00 < 816.67.
      expect(p).to.deep.include({ saved: usd(110000), remaining: usd(490000), percent: 18.33, months_left: 6, needed_per_month: usd(81667), on_track: false });
    });

    it("the 90-day window is today and the 89 days before: 2025-12-16 counts, 2025-12-15 does not", async () => {
      const out = await goal(alice, { name: "Window out", target_amount: "3000.00", target_date: "2026-09-15" });
      await fund(alice, out.id, "1500.00", { date: "2025-12-15" });
      // remaining 1500.00 / 6.0 = 250.00 a month; nothing in the window → off track (1500 / 3 would be on track).
      expect(await progress(alice, out.id)).to.deep.include({ needed_per_month: usd(25000), on_track: false });
      const inside = await goal(alice, { name: "Window in", target_amount: "3000.00", target_date: "2026-09-15" });
      await fund(alice, inside.id, "600.00", { date: "2025-12-15" });
      await fund(alice, inside.id, "900.00", { date: "2025-12-16" });
      // Same remaining 1500.00 → 250.00 needed; 900.00 in the window / 3 = 300.00 ≥ 250.00.
      expect(await progress(alice, inside.id)).to.deep.include({ needed_per_month: usd(25000), on_track: true });
    });

    it("less than a month left needs the whole remaining amount; a past date has 0 months left", async () => {
      const soon = await goal(alice, { name: "Soon", target_amount: "100.00", target_date: "2026-04-01" });
      await fund(alice, soon.id, "40.00", { date: "2026-03-14" });
      // 17 days / 30.4375 = 0.558 → 0.5 months: the whole 60.00 is needed; 40 / 3 = 13.33 < 60.
      expect(await progress(alice, soon.id)).to.deep.include({ months_left: 0.5, needed_per_month: usd(6000), on_track: false, percent: 40 });
      const late = await goal(alice, { name: "Late", target_amount: "100.00", target_date: "2026-03-01" });
      expect(await progress(alice, late.id)).to.deep.include({ months_left: 0, needed_per_month: usd(10000), on_track: false, percent: 0, remaining: usd(10000) });
    });

    it("without a target amount or a target date, the figures that need them are null", async () => {
      const open = await goal(alice, { name: "Rainy day", target_date: "2027-03-15" });
      await fund(alice, open.id, "12.34");
      const p = await progress(alice, open.id);
      // 365 days / 30.4375 = 11.99 → 11.9
      expect(p).to.deep.include({ target_amount: null, saved: usd(1234), remaining: null, percent: null, months_left: 11.9, needed_per_month: null, on_track: null });
      expect(p.recent_contributions[0]).to.deep.include({ date: "2026-03-15", amount: usd(1234) }); // date defaults to today
      const undated = await goal(alice, { name: "Someday", target_amount: "50.00" });
      expect(await progress(alice, undated.id)).to.deep.include({ months_left: null, needed_per_month: null, on_track: null, remaining: usd(5000), percent: 0 });
      await fund(alice, undated.id, "50.00");
      expect(await progress(alice, undated.id)).to.deep.include({ remaining: usd(0), percent: 100, on_track: true, status: "achieved" });
    });

    it("shows only the latest five contributions, and get_goal_progress without goal_id covers goals that are not archived", async () => {
      const g = await goal(alice, { name: "Many", target_amount: "1000.00" });
      for (const d of ["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04", "2026-01-05", "2026-01-06", "2026-01-07"]) await fund(alice, g.id, "1.00", { date: d });
      const p = await progress(alice, g.id);
      expect(p.recent_contributions.map((c: any) => c.date)).to.deep.equal(["2026-01-07", "2026-01-06", "2026-01-05", "2026-01-04", "2026-01-03"]);
      expect(p.saved).to.deep.equal(usd(700));
      await server.call("update_goal", { goal_id: g.id, status: "archived", idempotency_key: key() }, alice.token);
      const all = await server.call("get_goal_progress", {}, alice.token);
      expect(all.goals.map((x: any) => x.goal_id)).to.not.include(g.id);
      expect(all.goals.map((x: any) => x.name)).to.include.members(["Emergency fund", "Car"]);
      expect((await progress(alice, g.id)).status).to.equal("archived"); // by id, archived goals still answer
    });
  });

  describe("contributions", () => {
    it("sum exactly in minor units, in USD, JPY and KWD", async () => {
      const g = await goal(alice, { name: "Cents", target_amount: "1.00" });
      for (let i = 0; i < 10; i++) await fund(alice, g.id, "0.10");
      await fund(alice, g.id, "-0.30");
      expect((await progress(alice, g.id)).saved).to.deep.equal(usd(70));
      const yen = await goal(alice, { name: "Yen", currency: "JPY", target_amount: "30000" });
      await fund(alice, yen.id, "12345");
      expect((await progress(alice, yen.id)).saved).to.deep.equal({ value: "12345", currency: "JPY", minor: 12345 });
      const err = await server.callError("add_goal_funds", { goal_id: yen.id, amount: "1.5", idempotency_key: key() }, alice.token);
      expect(err.data).to.include({ code: "invalid_params", field: "amount" });
      const kwd = await goal(alice, { name: "Dinar", currency: "KWD" });
      await fund(alice, kwd.id, "0.001");
      await fund(alice, kwd.id, "1.234");
      expect((await progress(alice, kwd.id)).saved).to.deep.equal({ value: "1.235", currency: "KWD", minor: 1235 });
      const sum = await server.db("goal_contributions").where({ goal_id: g.id }).sum({ s: "amount_minor" });
      expect(String(sum[0]!.s)).to.equal("70");
    });

    it("withdraw down to zero but never below, and refuse zero", async () => {
      const g = await goal(alice, { name: "Holiday", target_amount: "500.00" });
      await fund(alice, g.id, "100.00");
      const w = await fund(alice, g.id, "-40.00", { note: "Concert" });
      expect(w.contribution).to.deep.include({ amount: usd(-4000), note: "Concert" });
      expect(w.goal.saved).to.deep.equal(usd(6000));
      const err = await server.callError("add_goal_funds", { goal_id: g.id, amount: "-60.01", idempotency_key: key() }, alice.token);
      expect(err.data).to.include({ code: "invalid_params", field: "amount" });
      expect(err.message).to.contain("60.00");
      const zero = await server.callError("add_goal_funds", { goal_id: g.id, amount: "0.00", idempotency_key: key() }, alice.token);
      expect(zero.data).to.include({ code: "invalid_params", field: "amount" });
      expect(await server.db("goal_contributions").where({ goal_id: g.id })).to.have.length(2);
      const all = await fund(alice, g.id, "-60.00");
      expect(all.goal.saved).to.deep.equal(usd(0));
    });

    it("the goal becomes achieved when the saved amount first reaches the target, with a warning", async () => {
      const g = await goal(alice, { name: "Laptop", target_amount: "100.00" });
      const first = await fund(alice, g.id, "60.00");
      expect(first.goal.status).to.equal("active");
      expect(first.warnings).to.deep.equal([]);
      const second = await fund(alice, g.id, "40.00");
      expect(second.goal).to.deep.include({ status: "achieved", achieved_at: NOW.toISOString(), saved: usd(10000) });
      expect(second.warnings.map((w: any) => w.code)).to.deep.equal(["goal_achieved"]);
      // A later withdrawal does not undo it, and adding again does not warn again.
      const back = await fund(alice, g.id, "-10.00");
      expect(back.goal.status).to.equal("achieved");
      expect((await fund(alice, g.id, "20.00")).warnings).to.deep.equal([]);
      // Lowering a target to what is already saved achieves a goal too.
      const h = await goal(alice, { name: "Headphones", target_amount: "300.00" });
      await fund(alice, h.id, "150.00");
      const upd = await server.call("update_goal", { goal_id: h.id, target_amount: "150.00", idempotency_key: key() }, alice.token);
      expect(upd.goal.status).to.equal("achieved");
      expect(upd.warnings.map((w: any) => w.code)).to.deep.equal(["goal_achieved"]);
    });

    it("from another wallet: a transfer to the goal's wallet (adding) or back (withdrawing), linked to the contribution; from its own wallet: the contribution only", async () => {
      const wal = await wallet(alice, "Savings account");
      const checking = await wallet(alice, "Everyday checking");
      const g = await goal(alice, { name: "Japan trip", target_amount: "4000.00", target_date: "2026-10-01", wallet_id: wal, notes: "Two weeks" });
      expect(g.wallet_id).to.equal(wal);
      const add = await fund(alice, g.id, "250.00", { date: "2026-03-15", note: "Tax refund", from_wallet_id: checking });
      expect(add.transaction).to.deep.include({ wallet_id: checking, date: "2026-03-15", amount: usd(-25000), direction: "transfer", description: "Goal contribution: Japan trip", notes: "Tax refund", category: null });
      expect(add.contribution).to.deep.include({ from_wallet_id: checking, transaction_id: add.transaction.id, amount: usd(25000), note: "Tax refund" });
      expect(add.goal.saved).to.deep.equal(usd(25000));
      expect(await balance(alice, checking)).to.deep.equal(usd(75000));
      expect(await balance(alice, wal)).to.deep.equal(usd(125000));
      const back = await fund(alice, g.id, "-50.00", { from_wallet_id: checking });
      expect(back.transaction).to.deep.include({ wallet_id: checking, amount: usd(5000), direction: "transfer", description: "Goal withdrawal: Japan trip", notes: null });
      expect(await balance(alice, checking)).to.deep.equal(usd(80000));
      expect(await balance(alice, wal)).to.deep.equal(usd(120000));
      expect(back.goal.saved).to.deep.equal(usd(20000));
      const stored = await server.db("transactions").where({ id: add.transaction.id }).first();
      expect(String(stored.amount_minor)).to.equal("-25000");
      const recent = (await progress(alice, g.id)).recent_contributions;
      expect(recent.find((c: any) => c.id === back.contribution.id)).to.deep.include({ transaction_id: back.transaction.id, from_wallet_id: checking, amount: usd(-5000) });
      // From the goal's own wallet no money moves between wallets: the contribution only.
      const own = await fund(alice, g.id, "10.00", { from_wallet_id: wal });
      expect(own.transaction).to.equal(null);
      expect(own.contribution).to.deep.include({ from_wallet_id: wal, transaction_id: null });
      expect(await balance(alice, wal)).to.deep.equal(usd(120000));
      // Without from_wallet_id there is no transaction.
      expect((await fund(alice, g.id, "1.00")).transaction).to.equal(null);
    });

    it("from a wallet creates both records or neither", async () => {
      const wal = await wallet(alice, "Atomic");
      const eur = await wallet(alice, "Euro savings", "EUR");
      // Kept in another wallet, so funding from `wal` moves money: a transfer beside the contribution.
      const g = await goal(alice, { name: "Atomic goal", target_amount: "100.00", wallet_id: await wallet(alice, "Atomic savings") });
      const countTx = async () => Number((await server.db("transactions").where({ wallet_id: wal }).count({ n: "*" }))[0]!.n);
      const countGc = async () => Number((await server.db("goal_contributions").where({ goal_id: g.id }).count({ n: "*" }))[0]!.n);
      const countAudit = async () => Number((await server.db("audit_log").where({ user_id: alice.id }).count({ n: "*" }))[0]!.n);
      const audits = await countAudit();

      // Refused before anything is written: another currency, a wallet that is not the user's, too large a withdrawal.
      let err = await server.callError("add_goal_funds", { goal_id: g.id, amount: "10.00", from_wallet_id: eur, idempotency_key: key() }, alice.token);
      expect(err.data).to.include({ code: "invalid_params", field: "from_wallet_id" });
      const bobWallet = await wallet(bob, "Bob's");
      err = await server.callError("add_goal_funds", { goal_id: g.id, amount: "10.00", from_wallet_id: bobWallet, idempotency_key: key() }, alice.token);
      expect(err.data).to.include({ code: "not_found", field: "from_wallet_id" });
      err = await server.callError("add_goal_funds", { goal_id: g.id, amount: "-10.00", from_wallet_id: wal, idempotency_key: key() }, alice.token);
      expect(err.data).to.include({ code: "invalid_params", field: "amount" });

      // The contribution fails after the wallet transaction was inserted: the transaction is rolled back too.
      const boom = { goal_id: g.id, amount: "10.00", note: "boom", from_wallet_id: wal, idempotency_key: key() };
      err = await withFailingInsert(server.db, "goal_contributions", () => server.callError("add_goal_funds", boom, alice.token), { column: "note", value: "boom" });
      expect(err.data.code).to.equal("internal_error");
      expect([await countTx(), await countGc(), await countAudit()]).to.deep.equal([0, 0, audits]);
      expect(await balance(alice, wal)).to.deep.equal(usd(100000));

      // And when it works, both exist.
      const ok = await fund(alice, g.id, "10.00", { note: "fine", from_wallet_id: wal });
      expect([await countTx(), await countGc()]).to.deep.equal([1, 1]);
      expect(ok.contribution.transaction_id).to.equal(ok.transaction.id);
    });
  });

  describe("create, update, delete, list", () => {
    it("create takes the wallet's currency, refuses a wallet in another currency and duplicate names", async () => {
      const eur = await wallet(alice, "Tagesgeld", "EUR");
      const g = await goal(alice, { name: "Urlaub", wallet_id: eur, target_amount: "800.00" });
      expect(g).to.deep.include({ currency: "EUR", wallet_id: eur, target_amount: { value: "800.00", currency: "EUR", minor: 80000 } });
      let err = await server.callError("create_goal", { name: "X", currency: "USD", wallet_id: eur, idempotency_key: key() }, alice.token);
      expect(err.data).to.include({ code: "invalid_params", field: "wallet_id" });
      err = await server.callError("create_goal", { name: "urlaub ", idempotency_key: key() }, alice.token);
      expect(err.data).to.include({ code: "conflict", field: "name", existing_id: g.id });
      err = await server.callError("create_goal", { name: "Y", target_amount: "0", idempotency_key: key() }, alice.token);
      expect(err.data).to.include({ code: "invalid_params", field: "target_amount" });
    });

    it("update changes only what is given and removes fields with null; status archived hides the goal from lists", async () => {
      const wal = await wallet(alice, "Goal wallet");
      const g = await goal(alice, { name: "Bike", target_amount: "900.00", target_date: "2026-08-01", wallet_id: wal, notes: "road bike" });
      await fund(alice, g.id, "100.00");
      let r = await server.call("update_goal", { goal_id: g.id, target_amount: null, target_date: null, wallet_id: null, idempotency_key: key() }, alice.token);
      expect(r.goal).to.deep.include({ target_amount: null, target_date: null, wallet_id: null, notes: "road bike", name: "Bike", saved: usd(10000), status: "active" });
      r = await server.call("update_goal", { goal_id: g.id, status: "paused", name: "E-bike", idempotency_key: key() }, alice.token);
      expect(r.goal).to.deep.include({ status: "paused", name: "E-bike" });
      const err = await server.callError("update_goal", { goal_id: g.id, name: "CAR", idempotency_key: key() }, alice.token);
      expect(err.data).to.include({ code: "conflict", field: "name" });
      await server.call("update_goal", { goal_id: g.id, status: "archived", idempotency_key: key() }, alice.token);
      expect((await server.call("list_goals", {}, alice.token)).goals.map((x: any) => x.id)).to.not.include(g.id);
      const all = await server.call("list_goals", { include_archived: true }, alice.token);
      expect(all.goals.find((x: any) => x.id === g.id)).to.deep.include({ status: "archived", saved: usd(10000) });
    });

    it("delete removes the goal and its contributions, never the wallet transactions, and keeps the history in the audit log", async () => {
      const wal = await wallet(alice, "Delete wallet");
      const g = await goal(alice, { name: "Gone", target_amount: "100.00", wallet_id: await wallet(alice, "Gone savings") });
      await fund(alice, g.id, "30.00", { from_wallet_id: wal });
      await fund(alice, g.id, "20.00");
      const dry = await server.call("delete_goal", { goal_id: g.id, idempotency_key: key(), dry_run: true }, alice.token);
      expect(dry.warnings).to.deep.equal([{ code: "contributions_removed", message: "2 contributions totalling 50.00 USD would be removed with the goal; they stay in the audit log and no wallet balance changes." }]);
      const r = await server.call("delete_goal", { goal_id: g.id, idempotency_key: key() }, alice.token);
      expect(r.goal).to.deep.include({ id: g.id, saved: usd(5000) });
      expect(r.warnings[0].message).to.contain("were removed");
      expect(await server.db("goals").where({ id: g.id })).to.have.length(0);
      expect(await server.db("goal_contributions").where({ goal_id: g.id })).to.have.length(0);
      expect(await server.db("transactions").where({ wallet_id: wal })).to.have.length(1);
      expect(await balance(alice, wal)).to.deep.equal(usd(97000));
      const audit = await server.db("audit_log").where({ id: r.audit_id }).first();
      const before = JSON.parse(audit.before_json);
      expect(before.contributions.map((c: any) => c.amount.value)).to.have.members(["30.00", "20.00"]);
      const err = await server.callError("get_goal_progress", { goal_id: g.id }, alice.token);
      expect(err.data).to.include({ code: "not_found", field: "goal_id" });
    });
  });

  describe("the write pipeline", () => {
    it("replays add_goal_funds without adding twice, leaves nothing after dry runs, and audits each committed write", async () => {
      const wal = await wallet(alice, "Pipeline wallet");
      const kept = await wallet(alice, "Pipeline savings");
      const created = await server.call("create_goal", { name: "Pipeline", target_amount: "100.00", wallet_id: kept, idempotency_key: key() }, alice.token);
      const g = created.goal;
      const k = key();
      const params = { goal_id: g.id, amount: "25.00", from_wallet_id: wal, idempotency_key: k };
      const first = await server.call("add_goal_funds", params, alice.token);
      const again = await server.call("add_goal_funds", params, alice.token);
      expect([first.status, again.status]).to.deep.equal(["committed", "replayed"]);
      expect(again.contribution.id).to.equal(first.contribution.id);
      expect(again.audit_id).to.equal(first.audit_id);
      expect(await server.db("goal_contributions").where({ goal_id: g.id })).to.have.length(1);
      expect(await server.db("transactions").where({ wallet_id: wal })).to.have.length(1);
      expect((await progress(alice, g.id)).saved).to.deep.equal(usd(2500));

      const audits = async () => server.db("audit_log").where({ user_id: alice.id }).whereIn("resource_id", [g.id]).orderBy("id");
      const n = (await audits()).length;
      const dryFund = await server.call("add_goal_funds", { ...params, idempotency_key: key(), dry_run: true }, alice.token);
      expect(dryFund).to.deep.include({ status: "dry_run", audit_id: null });
      expect(dryFund.goal.saved).to.deep.equal(usd(5000));
      expect(dryFund.transaction.amount).to.deep.equal(usd(-2500));
      const dryCreate = await server.call("create_goal", { name: "Dry goal", idempotency_key: key(), dry_run: true }, alice.token);
      const dryUpdate = await server.call("update_goal", { goal_id: g.id, name: "Renamed", idempotency_key: key(), dry_run: true }, alice.token);
      const dryDelete = await server.call("delete_goal", { goal_id: g.id, idempotency_key: key(), dry_run: true }, alice.token);
      expect([dryCreate.status, dryUpdate.status, dryDelete.status]).to.deep.equal(["dry_run", "dry_run", "dry_run"]);
      expect(await server.db("goal_contributions").where({ goal_id: g.id })).to.have.length(1);
      expect(await server.db("transactions").where({ wallet_id: wal })).to.have.length(1);
      expect(await server.db("goals").where({ user_id: alice.id, name: "Dry goal" })).to.have.length(0);
      expect((await server.db("goals").where({ id: g.id }).first()).name).to.equal("Pipeline");
      expect((await audits()).length).to.equal(n);

      const upd = await server.call("update_goal", { goal_id: g.id, name: "Renamed", idempotency_key: key() }, alice.token);
      const del = await server.call("delete_goal", { goal_id: g.id, idempotency_key: key() }, alice.token);
      const rows = await audits();
      expect(rows.map((r: any) => [String(r.id), r.tool, r.action, r.resource_type])).to.deep.equal([
        [created.audit_id, "create_goal", "create", "goal"],
        [first.audit_id, "add_goal_funds", "add_funds", "goal"],
        [upd.audit_id, "update_goal", "update", "goal"],
        [del.audit_id, "delete_goal", "delete", "goal"],
      ]);
      const fundRow = rows[1];
      expect(JSON.parse(fundRow.before_json).saved).to.deep.equal(usd(0));
      expect(JSON.parse(fundRow.after_json)).to.deep.include({ saved: usd(2500) });
      expect(JSON.parse(fundRow.after_json).contribution).to.deep.include({ id: first.contribution.id, transaction_id: first.transaction.id });
    });
  });

  describe("another user", () => {
    it("gets not_found for every goal tool with the first user's ids, and the first user's goal is unchanged", async () => {
      const wal = await wallet(alice, "Alice only");
      const g = await goal(alice, { name: "Alice's goal", target_amount: "100.00", wallet_id: wal });
      await fund(alice, g.id, "10.00");
      const snapshot = async () => [await server.db("goals").where({ id: g.id }).first(), await server.db("goal_contributions").where({ goal_id: g.id })];
      const before = await snapshot();
      for (const [tool, params] of [
        ["get_goal_progress", { goal_id: g.id }],
        ["update_goal", { goal_id: g.id, name: "Mine", idempotency_key: key() }],
        ["delete_goal", { goal_id: g.id, idempotency_key: key() }],
        ["add_goal_funds", { goal_id: g.id, amount: "5.00", idempotency_key: key() }],
        ["add_goal_funds", { goal_id: g.id, amount: "-10.00", idempotency_key: key(), dry_run: true }],
      ] as const) {
        const err = await server.callError(tool, params, bob.token);
        expect(err.data, tool).to.include({ code: "not_found", field: "goal_id" });
      }
      let err = await server.callError("create_goal", { name: "Bob's", wallet_id: wal, idempotency_key: key() }, bob.token);
      expect(err.data).to.include({ code: "not_found", field: "wallet_id" });
      const own = await goal(bob, { name: "Alice's goal" }); // names are per user
      err = await server.callError("add_goal_funds", { goal_id: own.id, amount: "5.00", from_wallet_id: wal, idempotency_key: key() }, bob.token);
      expect(err.data).to.include({ code: "not_found", field: "from_wallet_id" });
      err = await server.callError("update_goal", { goal_id: own.id, wallet_id: wal, idempotency_key: key() }, bob.token);
      expect(err.data).to.include({ code: "not_found", field: "wallet_id" });
      const list = await server.call("list_goals", { include_archived: true }, bob.token);
      expect(list.goals.map((x: any) => x.id)).to.deep.equal([own.id]);
      expect((await server.call("get_goal_progress", {}, bob.token)).goals.map((x: any) => x.goal_id)).to.deep.equal([own.id]);
      expect(await snapshot()).to.deep.equal(before);
      expect(await server.db("transactions").where({ wallet_id: wal })).to.have.length(0);
    });
  });
});
