/**
 * set_recurring_series (issue 38 item 1, docs/decisions.md#recurring-decisions): the person's decision on
 * a regular payment is kept, shown by list_recurring, used by the forecast, undoable, dry-run and
 * idempotent like every write; a dismissed series never comes back, even after new charges; a correction's
 * amount range and day window decide which charges are the series; another person's series are never touched.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { exportAccount } from "../../src/portability/export.js";
import { importAccount } from "../../src/portability/import.js";
import { deleteAccount } from "../../src/account/delete.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

describe(`set_recurring_series (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  const TODAY = new Date("2026-11-25T12:00:00Z");
  let now = TODAY;
  afterEach(() => (now = TODAY));
  before(async () => (server = await startTestServer({}, { now: () => now })));
  after(async () => server?.close());
  const key = () => randomUUID();

  /** A person with Netflix (13.99 on the 15th, Aug–Nov), a gym (29.90 on the 1st) and Amazon (8.99 on the 5th, and two one-off orders). */
  async function person(): Promise<{ user: TestUser; walletId: string }> {
    const user = await server.createUser({ timezone: "Europe/Berlin", currency: "EUR" });
    const { wallet } = await server.call("create_wallet", { name: "Giro", type: "checking", currency: "EUR", opening_balance: "2000.00", opening_date: "2026-01-01", idempotency_key: key() }, user.token);
    const spend = (payee: string, amount: string, date: string) =>
      server.call("create_transaction", { wallet_id: wallet.id, direction: "expense", amount, payee, date, idempotency_key: key() }, user.token);
    for (const m of ["08", "09", "10", "11"]) {
      await spend("Netflix", "13.99", `2026-${m}-15`);
      await spend("FitX", "29.90", `2026-${m}-01`);
      await spend("Amazon", "8.99", `2026-${m}-05`);
    }
    await spend("Amazon", "54.00", "2026-09-20");
    await spend("Amazon", "23.50", "2026-10-12");
    return { user, walletId: wallet.id };
  }
  const list = async (u: TestUser) => (await server.call("list_recurring", { include_ended: true }, u.token)).recurring as any[];
  const set = (u: TestUser, params: Record<string, unknown>) => server.call("set_recurring_series", { idempotency_key: key(), ...params }, u.token);
  /** What the forecast expects to go out in December (FitX 29.90 on the 1st, Netflix 13.99 on the 15th). */
  const decemberOut = async (u: TestUser) =>
    Math.abs(((await server.call("get_cash_flow_forecast", { days: 60 }, u.token)).months as any[]).find((m) => m.month === "2026-12").expense.minor);

  it("lists each series with its key and no decision; a confirmation is kept, shown with confidence high, and replaced by a later decision", async () => {
    const { user } = await person();
    const before = await list(user);
    expect(before.map((r) => [r.payee, r.series, r.decision])).to.deep.equal([
      ["FitX", "expense:EUR:fitx", null],
      ["Netflix", "expense:EUR:netflix", null],
    ]);
    const answer = await set(user, { series: "expense:EUR:netflix", decision: "confirm" });
    expect(answer).to.deep.include({ status: "committed", warnings: [] });
    expect(answer.series).to.deep.equal({ series: "expense:EUR:netflix", decision: "confirmed", payee: null, amount_min: null, amount_max: null, day_from: null, day_to: null });
    expect((await list(user)).find((r) => r.payee === "Netflix")).to.deep.include({ decision: "confirmed", confidence: "high" });
    // The same key again replaces the decision (one row per series).
    await set(user, { series: "expense:EUR:netflix", decision: "correct", payee: "Netflix Premium" });
    expect((await list(user)).map((r) => [r.payee, r.decision])).to.deep.equal([
      ["FitX", null],
      ["Netflix Premium", "corrected"],
    ]);
    expect(await server.db("recurring_decisions").where({ user_id: user.id })).to.have.length(1);
  });

  it("a dismissed series never comes back (list, totals, forecast), not even after a new charge; undo brings it back", async () => {
    const { user, walletId } = await person();
    const totalBefore = (await server.call("list_recurring", {}, user.token)).totals[0].yearly.minor;
    expect(await decemberOut(user)).to.equal(2990 + 1399);
    const dismissed = await set(user, { series: "expense:EUR:fitx", decision: "dismiss" });
    expect((await list(user)).map((r) => r.payee)).to.deep.equal(["Netflix"]);
    const totals = (await server.call("list_recurring", {}, user.token)).totals;
    // Netflix alone: 12 × 13.99 in the 365 days after 2026-11-25.
    expect(totals[0].yearly.minor).to.equal(12 * 1399).and.to.be.below(totalBefore);
    expect(await decemberOut(user)).to.equal(1399);
    // A week on, the gym charges again, as regularly as ever: still dismissed.
    now = new Date("2026-12-03T12:00:00Z");
    await server.call("create_transaction", { wallet_id: walletId, direction: "expense", amount: "29.90", payee: "FITX", date: "2026-12-01", idempotency_key: key() }, user.token);
    expect((await list(user)).map((r) => r.payee)).to.deep.equal(["Netflix"]);
    // A dismissed series can be confirmed again though it is no longer listed.
    const undone = await server.call("undo_change", { audit_id: dismissed.audit_id, idempotency_key: key() }, user.token);
    expect(undone.status).to.equal("committed");
    expect((await list(user)).map((r) => [r.payee, r.decision, r.occurrences])).to.deep.equal([
      ["FITX", null, 5],
      ["Netflix", null, 4],
    ]);
    now = TODAY;
    expect(await decemberOut(user)).to.equal(2990 + 1399);
  });

  it("undo of a replaced decision restores the earlier one", async () => {
    const { user } = await person();
    await set(user, { series: "expense:EUR:netflix", decision: "confirm" });
    const dismissed = await set(user, { series: "expense:EUR:netflix", decision: "dismiss" });
    expect((await list(user)).map((r) => r.payee)).to.deep.equal(["FitX"]);
    await server.call("undo_change", { audit_id: dismissed.audit_id, idempotency_key: key() }, user.token);
    expect((await list(user)).find((r) => r.payee === "Netflix").decision).to.equal("confirmed");
  });

  it("a correction's amount range and day window decide which charges are the series: Amazon's monthly plan apart from its orders", async () => {
    const { user } = await person();
    // The orders break the monthly rhythm: no series is found for Amazon.
    expect((await list(user)).map((r) => r.payee)).to.not.include("Amazon");
    const corrected = await set(user, { series: "expense:EUR:amazon", decision: "correct", payee: "Amazon Prime", amount_max: "10.00" });
    expect(corrected.series).to.deep.include({ decision: "corrected", payee: "Amazon Prime", amount_max: { value: "10.00", currency: "EUR", minor: 1000 } });
    const prime = (await list(user)).find((r) => r.series === "expense:EUR:amazon");
    expect(prime).to.deep.include({ payee: "Amazon Prime", kind: "subscription", interval: "monthly", occurrences: 4, last_date: "2026-11-05", next_date: "2026-12-05", decision: "corrected", confidence: "high" });
    expect(prime.price.value).to.equal("8.99");
    // The same by the day of the month alone (the plan comes on the 5th, the orders on the 20th and 12th).
    await set(user, { series: "expense:EUR:amazon", decision: "correct", day_from: 3, day_to: 7 });
    expect((await list(user)).find((r) => r.series === "expense:EUR:amazon")).to.deep.include({ payee: "Amazon", occurrences: 4, interval: "monthly" });
    // A window wrapping past the month's end (28 to 4) leaves out the 5th: nothing recurs.
    await set(user, { series: "expense:EUR:amazon", decision: "correct", day_from: 28, day_to: 4 });
    expect((await list(user)).map((r) => r.series)).to.not.include("expense:EUR:amazon");
  });

  it("a dry run changes nothing; the same idempotency key answers the same", async () => {
    const { user } = await person();
    const preview = await server.call("set_recurring_series", { series: "expense:EUR:netflix", decision: "dismiss", dry_run: true, idempotency_key: key() }, user.token);
    expect(preview.status).to.equal("dry_run");
    expect((await list(user)).map((r) => r.payee)).to.include("Netflix");
    const k = key();
    const first = await server.call("set_recurring_series", { series: "expense:EUR:netflix", decision: "dismiss", idempotency_key: k }, user.token);
    const again = await server.call("set_recurring_series", { series: "expense:EUR:netflix", decision: "dismiss", idempotency_key: k }, user.token);
    expect(again.audit_id).to.equal(first.audit_id);
  });

  it("refuses bad input naming the field", async () => {
    const { user } = await person();
    const err = async (params: Record<string, unknown>) => (await server.callError("set_recurring_series", { idempotency_key: key(), ...params }, user.token)).data;
    expect(await err({ series: "expense:EUR:netflix", decision: "confirm", payee: "X" })).to.include({ code: "invalid_params", field: "payee" });
    expect(await err({ series: "expense:EUR:netflix", decision: "correct" })).to.include({ code: "invalid_params", field: "payee" });
    expect(await err({ series: "expense:EUR:netflix", decision: "correct", amount_min: "20.00", amount_max: "10.00" })).to.include({ code: "invalid_params", field: "amount_max" });
    expect(await err({ series: "expense:EUR:netflix", decision: "correct", amount_min: "ten" })).to.include({ code: "invalid_params", field: "amount_min" });
    expect(await err({ series: "expense:EUR:netflix", decision: "correct", day_from: 32 })).to.include({ code: "invalid_params", field: "day_from" });
    expect(await err({ series: "netflix", decision: "confirm" })).to.include({ code: "not_found", field: "series" });
    expect(await err({ series: "expense:EUR:spotify", decision: "dismiss" })).to.include({ code: "not_found", field: "series" });
    // A key in a currency that does not exist names no series, whatever amounts come with it (never a "currency" field the tool has not).
    expect(await err({ series: "expense:ZZZ:netflix", decision: "correct", amount_min: "5" })).to.include({ code: "not_found", field: "series" });
    expect(await server.db("recurring_decisions").where({ user_id: user.id })).to.have.length(0);
  });

  it("never touches another person's series: the same key is each person's own, and a key only another person has is not_found", async () => {
    const a = await person();
    const b = await person();
    await set(b.user, { series: "expense:EUR:netflix", decision: "dismiss" });
    expect((await list(a.user)).map((r) => [r.payee, r.decision])).to.deep.equal([
      ["FitX", null],
      ["Netflix", null],
    ]);
    const { wallet } = await server.call("create_wallet", { name: "Cash", type: "cash", currency: "EUR", idempotency_key: key() }, a.user.token);
    for (const m of ["09", "10", "11"])
      await server.call("create_transaction", { wallet_id: wallet.id, direction: "expense", amount: "9.99", payee: "Spotify", date: `2026-${m}-10`, idempotency_key: key() }, a.user.token);
    expect((await server.callError("set_recurring_series", { series: "expense:EUR:spotify", decision: "dismiss", idempotency_key: key() }, b.user.token)).data).to.include({
      code: "not_found",
      field: "series",
    });
    expect((await list(a.user)).map((r) => r.payee)).to.include("Spotify");
    expect(await server.db("recurring_decisions").where({ user_id: a.user.id })).to.have.length(0);
  });

  it("is carried by export and import, and deleted with the account", async () => {
    const { user } = await person();
    await set(user, { series: "expense:EUR:fitx", decision: "dismiss" });
    await set(user, { series: "expense:EUR:amazon", decision: "correct", amount_max: "10.00" });
    const exported = await exportAccount(server.db, user.id);
    const other = await server.createUser({ timezone: "Europe/Berlin", currency: "EUR" });
    const { counts } = await importAccount(server.db, other.id, JSON.parse(JSON.stringify(exported)));
    expect(counts.recurring_decisions).to.equal(2);
    const shown = async (u: TestUser) => (await list(u)).map((r) => [r.series, r.decision]);
    expect(await shown(other)).to.deep.equal(await shown(user));
    expect(await shown(other)).to.deep.equal([
      ["expense:EUR:netflix", null],
      ["expense:EUR:amazon", "corrected"],
    ]);
    await deleteAccount(server.db, user.id);
    expect(await server.db("recurring_decisions").where({ user_id: user.id })).to.have.length(0);
    expect(await server.db("recurring_decisions").where({ user_id: other.id })).to.have.length(2);
  });
});
