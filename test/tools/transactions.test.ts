/**
 * Transaction tools on the engine FINANCE_TEST_ENGINE names: recording (expense, income, transfer legs,
 * external_id, possible duplicates, default date), updating only what is given, deleting both legs,
 * amount validation, list filters/sorts/keyset pages checked against the test's own model of a seeded
 * random ledger, and summaries checked against totals the test computes itself.
 */
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { findTransaction } from "../../src/domain/transactions/store.js";
import { EXPONENT, expectedSummary, key, minorOf, recordRandomLedger, valueOf, type Figures, type LedgerModel, type ModelLeg } from "../writes/ledger-fixture.js";

describe(`transaction tools (${engine})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  let user: TestUser;
  let usd: any;
  let usd2: any;
  let jpy: any;

  before(async () => {
    server = await startTestServer({}, { now: () => new Date("2026-03-15T23:30:00Z") });
    user = await server.createUser({ timezone: "Asia/Tokyo" });
    const w = (name: string, currency: string) => server.call("create_wallet", { name, type: "checking", currency, idempotency_key: key() }, user.token).then((r) => r.wallet);
    usd = await w("Checking", "USD");
    usd2 = await w("Savings", "USD");
    jpy = await w("Yen", "JPY");
  });
  after(async () => server?.close());

  const create = (params: Record<string, unknown>, token = user.token) =>
    server.call("create_transaction", { wallet_id: usd.id, amount: "1.00", direction: "expense", idempotency_key: key(), ...params }, token);
  const createError = (params: Record<string, unknown>) =>
    server.callError("create_transaction", { wallet_id: usd.id, amount: "1.00", direction: "expense", idempotency_key: key(), ...params }, user.token);

  describe("create_transaction", () => {
    it("records an expense with a negative amount in the wallet's currency; date defaults to today in the user's timezone", async () => {
      const res = await create({ amount: "18.40", payee: " Blue Bottle Coffee ", description: "Coffee with Sam", category: "Dining", tags: ["Coffee", "coffee", "friends"] });
      expect(res.status).to.equal("committed");
      expect(res.counterpart).to.equal(null);
      expect(res.transaction).to.deep.include({
        wallet_id: usd.id,
        date: "2026-03-16",
        direction: "expense",
        payee: "Blue Bottle Coffee",
        description: "Coffee with Sam",
        category: "Dining",
        tags: ["coffee", "friends"],
        notes: null,
        external_id: null,
        transfer_id: null,
        counterpart_wallet_id: null,
        currency: "USD",
      });
      expect(res.transaction.amount).to.deep.equal({ value: "-18.40", currency: "USD", minor: -1840 });
      expect(res.transaction.id).to.match(/^txn_/);
    });

    it("records income as a positive amount; JPY has no decimals", async () => {
      const res = await create({ wallet_id: jpy.id, amount: "1500", direction: "income", date: "2026-03-01" });
      expect(res.transaction.amount).to.deep.equal({ value: "1500", currency: "JPY", minor: 1500 });
    });

    it("records a transfer as two legs sharing transfer_id, each pointing at the other wallet", async () => {
      const res = await create({ wallet_id: usd.id, to_wallet_id: usd2.id, amount: "500.00", direction: "transfer", date: "2026-03-15", description: "Monthly savings" });
      const { transaction: out, counterpart: inc } = res;
      expect(out).to.deep.include({ wallet_id: usd.id, direction: "transfer", counterpart_wallet_id: usd2.id, description: "Monthly savings" });
      expect(inc).to.deep.include({ wallet_id: usd2.id, direction: "transfer", counterpart_wallet_id: usd.id, description: "Monthly savings", transfer_id: out.transfer_id });
      expect(out.transfer_id).to.match(/^trf_/);
      expect(out.amount.value).to.equal("-500.00");
      expect(inc.amount.value).to.equal("500.00");
      const rows = await server.db("transactions").where({ transfer_id: out.transfer_id });
      expect(rows).to.have.length(2);
    });

    it("refuses bad transfers, naming to_wallet_id", async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ direction: "transfer" }, "invalid_params"],
        [{ direction: "transfer", to_wallet_id: usd.id }, "invalid_params"],
        [{ direction: "transfer", to_wallet_id: jpy.id }, "invalid_params"],
        [{ direction: "expense", to_wallet_id: usd2.id }, "invalid_params"],
        [{ direction: "transfer", to_wallet_id: "wal_doesnotexist00000000" }, "not_found"],
      ];
      for (const [params, code] of cases) {
        const err = await createError(params);
        expect(err.data, JSON.stringify(params)).to.include({ code, field: "to_wallet_id" });
      }
    });

    it("refuses bad amounts with messages that name the field", async () => {
      const cases: [Record<string, unknown>, RegExp][] = [
        [{ amount: 12.5 }, /type string|string/],
        [{ amount: "1e3" }, /pattern|exponent/],
        [{ amount: "1.234" }, /USD allows at most 2 decimal places/],
        [{ amount: "0.001" }, /USD allows at most 2 decimal places/],
        [{ amount: "-5.00" }, /pattern|sign/],
        [{ amount: "0" }, /greater than zero/],
        [{ amount: "0.00" }, /greater than zero/],
        [{ amount: " 5" }, /pattern|spaces/],
        [{ wallet_id: jpy.id, amount: "1.5" }, /JPY has no decimal places/],
      ];
      for (const [params, message] of cases) {
        const err = await createError(params);
        expect(err.data.code, JSON.stringify(params)).to.equal("invalid_params");
        expect(err.data.field, JSON.stringify(params)).to.equal("amount");
        expect(err.message, JSON.stringify(params)).to.match(message).and.to.include("amount");
      }
      expect((await createError({ date: "2026-02-30" })).data).to.include({ code: "invalid_params", field: "date" });
    });

    it("refuses a second external_id in the same wallet (conflict) and allows it in another wallet", async () => {
      const first = await create({ amount: "9.99", external_id: "bank-line-0001", date: "2026-02-01" });
      const err = await createError({ amount: "19.99", external_id: "bank-line-0001" });
      expect(err.data).to.include({ code: "conflict", field: "external_id", existing_id: first.transaction.id });
      expect((await create({ wallet_id: usd2.id, external_id: "bank-line-0001" })).transaction.external_id).to.equal("bank-line-0001");
    });

    it("warns about a possible duplicate (same wallet, direction, amount and payee within 3 days) and still records it", async () => {
      const first = await create({ amount: "42.75", payee: "Trader Joe's", date: "2026-01-10" });
      expect(first.warnings).to.deep.equal([]);
      const again = await create({ amount: "42.75", payee: "TRADER JOE'S", date: "2026-01-12" });
      expect(again.warnings.map((w: any) => w.code)).to.deep.equal(["possible_duplicate"]);
      expect(again.warnings[0].message).to.include(first.transaction.id);
      expect(again.status).to.equal("committed");
      // Not duplicates: other amount, other payee, more than 3 days apart, income, distinct bank lines.
      for (const p of [{ amount: "42.76" }, { payee: "Whole Foods" }, { date: "2026-01-20" }, { direction: "income" }]) {
        expect((await create({ amount: "42.75", payee: "Trader Joe's", date: "2026-01-11", ...p })).warnings, JSON.stringify(p)).to.deep.equal([]);
      }
      // An update that makes a transaction look like another warns too.
      const other = await create({ amount: "42.00", payee: "Trader Joe's", date: "2026-01-11" });
      const updated = await server.call("update_transaction", { transaction_id: other.transaction.id, amount: "42.75", idempotency_key: key() }, user.token);
      expect(updated.warnings.map((w: any) => w.code)).to.deep.equal(["possible_duplicate"]);
      await create({ amount: "3.00", payee: "Bakery", date: "2026-01-05", external_id: "line-a" });
      expect((await create({ amount: "3.00", payee: "Bakery", date: "2026-01-05", external_id: "line-b" })).warnings).to.deep.equal([]);
    });

    it("warns budget_over_limit when an expense pushes a budget over its limit", async () => {
      const u = await server.createUser();
      const w = (await server.call("create_wallet", { name: "W", type: "checking", currency: "USD", idempotency_key: key() }, u.token)).wallet;
      await server.call("create_budget", { name: "Dining out", amount: "20.00", currency: "USD", period: "month", categories: ["dining"], start_date: "2026-03-01", idempotency_key: key() }, u.token);
      const spend = (amount: string, category: string) =>
        server.call("create_transaction", { wallet_id: w.id, amount, direction: "expense", category, date: "2026-03-10", payee: `P ${amount}`, idempotency_key: key() }, u.token);
      expect((await spend("15.00", "Dining")).warnings).to.deep.equal([]);
      expect((await spend("99.00", "Rent")).warnings).to.deep.equal([]); // out of the budget's scope
      const over = await spend("5.01", "DINING");
      expect(over.warnings.map((x: any) => x.code)).to.deep.equal(["budget_over_limit"]);
      expect(over.warnings[0].message).to.include("Dining out");
    });

    it("warns when recording into an archived wallet", async () => {
      const w = (await server.call("create_wallet", { name: "Retired", type: "cash", currency: "USD", idempotency_key: key() }, user.token)).wallet;
      await server.call("update_wallet", { wallet_id: w.id, archived: true, idempotency_key: key() }, user.token);
      const res = await create({ wallet_id: w.id });
      expect(res.warnings.map((x: any) => x.code)).to.include("wallet_archived");
    });
  });

  describe("update_transaction", () => {
    it("changes only the fields given; null clears; tags replace the set", async () => {
      const t = (await create({ amount: "42.75", payee: "Trader Joe's", description: "Weekly groceries", category: "Groceries", tags: ["food"], notes: "n", date: "2026-03-14" })).transaction;
      const res = await server.call("update_transaction", { transaction_id: t.id, category: "Household", tags: ["food", "party"], notes: "Snacks for the party", idempotency_key: key() }, user.token);
      expect(res.transaction).to.deep.equal({ ...t, category: "Household", tags: ["food", "party"], notes: "Snacks for the party", updated_at: res.transaction.updated_at });
      const cleared = await server.call("update_transaction", { transaction_id: t.id, payee: null, description: null, category: null, notes: null, tags: [], idempotency_key: key() }, user.token);
      expect(cleared.transaction).to.deep.include({ payee: null, description: null, category: null, notes: null, tags: [], date: "2026-03-14" });
      expect(cleared.transaction.amount.value).to.equal("-42.75");
    });

    it("switches direction (the sign follows) and changes the amount in the currency's precision", async () => {
      const t = (await create({ amount: "10.00" })).transaction;
      const res = await server.call("update_transaction", { transaction_id: t.id, direction: "income", idempotency_key: key() }, user.token);
      expect(res.transaction.amount.value).to.equal("10.00");
      const res2 = await server.call("update_transaction", { transaction_id: t.id, amount: "0.30", direction: "expense", idempotency_key: key() }, user.token);
      expect(res2.transaction.amount).to.deep.equal({ value: "-0.30", currency: "USD", minor: -30 });
      const err = await server.callError("update_transaction", { transaction_id: t.id, amount: "0.305", idempotency_key: key() }, user.token);
      expect(err.data).to.include({ code: "invalid_params", field: "amount" });
    });

    it("moves a transaction to a wallet of the same currency and refuses another currency", async () => {
      const t = (await create({ amount: "5.00", external_id: "move-me" })).transaction;
      const moved = await server.call("update_transaction", { transaction_id: t.id, wallet_id: usd2.id, idempotency_key: key() }, user.token);
      expect(moved.transaction.wallet_id).to.equal(usd2.id);
      const err = await server.callError("update_transaction", { transaction_id: t.id, wallet_id: jpy.id, idempotency_key: key() }, user.token);
      expect(err.data).to.include({ code: "invalid_params", field: "wallet_id" });
      expect(err.message).to.include("same currency");
      // Moving onto a wallet where its external_id is taken is a conflict.
      await create({ wallet_id: usd.id, external_id: "move-me" });
      const clash = await server.callError("update_transaction", { transaction_id: t.id, wallet_id: usd.id, idempotency_key: key() }, user.token);
      expect(clash.data).to.include({ code: "conflict", field: "external_id" });
    });

    it("changes date, amount and description on both legs of a transfer; payee only on the leg given; refuses direction", async () => {
      const { transaction: out, counterpart: inc } = await create({ to_wallet_id: usd2.id, direction: "transfer", amount: "100.00", date: "2026-02-01" });
      const res = await server.call("update_transaction", { transaction_id: inc.id, amount: "120.00", date: "2026-02-02", description: "Top-up", payee: "Me", idempotency_key: key() }, user.token);
      expect(res.transaction).to.deep.include({ id: inc.id, date: "2026-02-02", description: "Top-up", payee: "Me" });
      expect(res.transaction.amount.value).to.equal("120.00");
      expect(res.counterpart).to.deep.include({ id: out.id, date: "2026-02-02", description: "Top-up", payee: null });
      expect(res.counterpart.amount.value).to.equal("-120.00");
      const err = await server.callError("update_transaction", { transaction_id: out.id, direction: "expense", idempotency_key: key() }, user.token);
      expect(err.data).to.include({ code: "invalid_params", field: "direction" });
      const self = await server.callError("update_transaction", { transaction_id: out.id, wallet_id: usd2.id, idempotency_key: key() }, user.token);
      expect(self.data).to.include({ code: "invalid_params", field: "wallet_id" });
    });

    it("needs at least one field", async () => {
      const t = (await create({})).transaction;
      const err = await server.callError("update_transaction", { transaction_id: t.id, idempotency_key: key(), dry_run: true }, user.token);
      // The changeable fields come from the spec's params (requireSomeChange), as for the other update tools.
      expect(err.data).to.deep.include({ code: "invalid_params", field: "(params)", expected: "at least one of wallet_id, date, amount, direction, payee, description, category, tags, notes, parts, refund_of" });
    });
  });

  describe("delete_transaction", () => {
    it("deletes a transaction and answers its snapshot", async () => {
      const t = (await create({ tags: ["gone"] })).transaction;
      const res = await server.call("delete_transaction", { transaction_id: t.id, idempotency_key: key() }, user.token);
      expect(res.transaction).to.deep.equal(t);
      expect(res.counterpart).to.equal(null);
      expect(await server.db("transactions").where({ id: t.id }).first()).to.equal(undefined);
      expect(await server.db("transaction_tags").where({ transaction_id: t.id })).to.deep.equal([]);
    });

    it("deletes both legs of a transfer, whichever leg is named", async () => {
      for (const which of ["transaction", "counterpart"] as const) {
        const created = await create({ to_wallet_id: usd2.id, direction: "transfer", amount: "7.00" });
        const res = await server.call("delete_transaction", { transaction_id: created[which].id, idempotency_key: key() }, user.token);
        expect(res.transaction.id).to.equal(created[which].id);
        expect(res.counterpart.id).to.equal(created[which === "transaction" ? "counterpart" : "transaction"].id);
        expect(await server.db("transactions").where({ transfer_id: created.transaction.transfer_id })).to.deep.equal([]);
      }
    });
  });

  describe("money", () => {
    it("sums amounts that floats get wrong exactly in summaries (0.10 + 0.20; past 2^53 minor units in CLF)", async () => {
      const u = await server.createUser();
      // CLF has 4 decimals: 900719925474.0993 is 2^53 + 1 minor units, below the amount bound (1e12).
      const w = (await server.call("create_wallet", { name: "W", type: "checking", currency: "CLF", idempotency_key: key() }, u.token)).wallet;
      const add = (amount: string, direction: string, date: string) => server.call("create_transaction", { wallet_id: w.id, amount, direction, date, idempotency_key: key() }, u.token);
      await add("0.10", "income", "2026-01-01");
      await add("0.20", "income", "2026-01-02");
      await add("900719925474.0993", "expense", "2026-02-01");
      await add("900719925474.0993", "expense", "2026-02-02");
      await add("0.01", "expense", "2026-02-03");
      const jan = await server.call("get_transaction_summary", { date_from: "2026-01-01", date_to: "2026-01-31" }, u.token);
      expect(jan.totals[0].income).to.deep.equal({ value: "0.3000", currency: "CLF", minor: 3000 });
      const all = await server.call("get_transaction_summary", { date_from: "2026-01-01", date_to: "2026-12-31", group_by: "month" }, u.token);
      expect(all.totals[0].expenses.value).to.equal("1801439850948.2086");
      expect(all.totals[0].net.value).to.equal("-1801439850947.9086");
      expect(all.groups.map((g: any) => [g.key, g.net.value])).to.deep.equal([
        ["2026-01", "0.3000"],
        ["2026-02", "-1801439850948.2086"],
      ]);
      const listed = await server.call("list_transactions", { min_amount: "900719925474.0993" }, u.token);
      expect(listed.total_count).to.equal(2);
      expect(listed.transactions[0].amount.value).to.equal("-900719925474.0993");
    });
  });

  describe("list_transactions and get_transaction_summary over a seeded random ledger", () => {
    let u: TestUser;
    let model: LedgerModel;
    before(async () => {
      u = await server.createUser({ timezone: "UTC" });
      model = await recordRandomLedger(server, u, 424242, 110);
    });

    const magnitude = (l: ModelLeg) => (l.signed < 0n ? -l.signed : l.signed);
    /** An upper bound in minor units, rounded down (the test's own rule: "12.5" JPY allows at most 12 yen). */
    const maxBound = (d: string, e: number) => (e === 0 ? BigInt(d.split(".")[0]!) : minorOf(d, e));

    /** Every page of a query, following next_cursor. */
    async function allPages(params: Record<string, unknown>, limit: number): Promise<{ ids: string[]; totals: number[]; pages: number }> {
      const ids: string[] = [];
      const totals: number[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const res = await server.call("list_transactions", { ...params, limit, ...(cursor ? { cursor } : {}) }, u.token);
        expect(res.transactions.length).to.be.at.most(limit);
        ids.push(...res.transactions.map((t: any) => t.id));
        totals.push(res.total_count);
        cursor = res.next_cursor ?? undefined;
        pages++;
      } while (cursor && pages < 1000);
      return { ids, totals, pages };
    }

    function expectedIds(filter: (l: ModelLeg) => boolean, sort: string, idOrder: string[]): string[] {
      // Ties on the sort key are ordered by id in the database's own order; take that order from a
      // plain ORDER BY id so the test does not assume a collation.
      const rank = new Map(idOrder.map((id, i) => [id, i]));
      const legs = model.legs.filter(filter);
      const byKey = (a: ModelLeg, b: ModelLeg): number => {
        if (sort.startsWith("date")) return a.date < b.date ? -1 : a.date > b.date ? 1 : 0;
        const ma = magnitude(a);
        const mb = magnitude(b);
        return ma < mb ? -1 : ma > mb ? 1 : 0;
      };
      legs.sort((a, b) => byKey(a, b) || rank.get(a.id)! - rank.get(b.id)!);
      if (sort.endsWith("desc")) legs.reverse();
      return legs.map((l) => l.id);
    }

    let idOrder: string[];
    before(async () => {
      idOrder = (await server.db("transactions").where({ user_id: u.id }).orderBy("id").select("id")).map((r: any) => r.id);
    });

    it("pages through every sort with a keyset cursor: no gaps, no repeats, total_count on every page", async () => {
      for (const sort of ["date_desc", "date_asc", "amount_desc", "amount_asc"]) {
        const { ids, totals, pages } = await allPages({ sort }, 17);
        expect(ids, sort).to.deep.equal(expectedIds(() => true, sort, idOrder));
        expect(new Set(totals), sort).to.deep.equal(new Set([model.legs.length]));
        expect(pages, sort).to.equal(Math.ceil(model.legs.length / 17));
      }
    });

    it("applies every filter as the test's own model does", async () => {
      const usdWallet = model.wallets[0]!;
      const cases: [Record<string, unknown>, (l: ModelLeg) => boolean][] = [
        [{ date_from: "2026-02-01", date_to: "2026-02-28" }, (l) => l.date >= "2026-02-01" && l.date <= "2026-02-28"],
        [{ wallet_id: usdWallet.id }, (l) => l.walletId === usdWallet.id],
        [{ category: "GROCERIES" }, (l) => l.category?.toLowerCase() === "groceries"],
        [{ direction: "transfer" }, (l) => l.direction === "transfer"],
        [{ direction: "income", date_to: "2026-03-01" }, (l) => l.direction === "income" && l.date <= "2026-03-01"],
        [{ tags_any: ["FOOD", "travel"] }, (l) => l.tags.includes("food") || l.tags.includes("travel")],
        [{ tags_all: ["food", "work"] }, (l) => l.tags.includes("food") && l.tags.includes("work")],
        [{ query: "trader" }, (l) => (l.payee ?? "").toLowerCase().includes("trader")],
        [{ query: "100%" }, (l) => (l.notes ?? "").includes("100%")],
        [{ query: "_with_" }, (l) => (l.notes ?? "").includes("_with_")],
        [{ query: "COFFEE" }, (l) => (l.notes ?? "").includes("coffee")],
        // Magnitudes per currency: "40" is 4000 cents, 40 yen and 40000 fils.
        [{ min_amount: "40" }, (l) => magnitude(l) >= minorOf("40", EXPONENT[l.currency]!)],
        [{ max_amount: "12.5" }, (l) => magnitude(l) <= maxBound("12.5", EXPONENT[l.currency]!)],
        [{ min_amount: "0.30", max_amount: "100.00", wallet_id: usdWallet.id }, (l) => l.walletId === usdWallet.id && magnitude(l) >= 30n && magnitude(l) <= 10000n],
        // currency: one currency, whose exponent alone then reads the bounds (bounds are inclusive).
        [{ currency: "JPY" }, (l) => l.currency === "JPY"],
        [{ currency: "USD", min_amount: "40" }, (l) => l.currency === "USD" && magnitude(l) >= 4000n],
        [{ currency: "JPY", max_amount: "500" }, (l) => l.currency === "JPY" && magnitude(l) <= 500n],
      ];
      for (const [params, filter] of cases) {
        for (const sort of ["date_desc", "amount_asc"]) {
          const expected = expectedIds(filter, sort, idOrder);
          // The seeded data makes every filter meaningful: it keeps some transactions and drops others.
          expect(expected.length, JSON.stringify(params)).to.be.within(1, model.legs.length - 1);
          const { ids, totals } = await allPages({ ...params, sort }, 25);
          expect(ids, `${JSON.stringify(params)} ${sort}`).to.deep.equal(expected);
          expect(totals[0], JSON.stringify(params)).to.equal(expected.length);
        }
      }
    });

    it("answers each transaction of a page, tags included, as it is read alone (tags read with the page)", async () => {
      // Another user, so the model's ledger stays as the other tests compute it. Tags whose order differs
      // between code points, UTF-8 bytes and UTF-16 units, many tags and none.
      const v = await server.createUser({ timezone: "UTC" });
      const vWallet = (await server.call("create_wallet", { name: "Odd", type: "checking", currency: "USD", idempotency_key: key() }, v.token)).wallet;
      const odd = [["zeta", "äpfel", "alpha", "😀x", "\uff5e", "ß", "a b", "z"], [], ["only"], ["\uff5e", "😀"], ["b", "a"]];
      for (const tags of odd) await server.call("create_transaction", { wallet_id: vWallet.id, amount: "3.00", direction: "expense", tags, idempotency_key: key() }, v.token);
      const oddPage = await server.call("list_transactions", { limit: 3 }, v.token);
      for (const t of oddPage.transactions) expect(t).to.deep.equal(JSON.parse(JSON.stringify(await findTransaction(server.db, v.id, t.id))));
      expect(oddPage.transactions.map((t: any) => t.tags.length).sort()).to.not.deep.equal([0, 0, 0]);
      let compared = 0;
      let tagged = 0;
      for (const [params, limit] of [[{ sort: "date_desc" }, 50], [{ sort: "amount_asc" }, 7], [{ tags_any: ["food", "travel"], sort: "amount_desc" }, 200], [{ wallet_id: model.wallets[0]!.id }, 1], [{ wallet_id: model.wallets[1]!.id, sort: "date_asc", date_from: "2026-01-15", date_to: "2026-03-31", query: "a" }, 4]] as const) {
        let cursor: string | undefined;
        do {
          const res = await server.call("list_transactions", { ...params, limit, ...(cursor ? { cursor } : {}) }, u.token);
          for (const t of res.transactions) {
            expect(t).to.deep.equal(JSON.parse(JSON.stringify(await findTransaction(server.db, u.id, t.id))));
            compared++;
            if (t.tags.length > 1) tagged++;
          }
          cursor = res.next_cursor ?? undefined;
        } while (cursor);
      }
      expect(compared).to.be.greaterThan(200);
      expect(tagged).to.be.greaterThan(10);
    });

    it("refuses a cursor from another query and a forged cursor (naming cursor)", async () => {
      const first = await server.call("list_transactions", { limit: 5, direction: "expense" }, u.token);
      expect(first.next_cursor).to.be.a("string");
      const other = await server.callError("list_transactions", { limit: 5, direction: "income", cursor: first.next_cursor }, u.token);
      expect(other.data).to.include({ code: "invalid_params", field: "cursor" });
      const sorted = await server.callError("list_transactions", { limit: 5, direction: "expense", sort: "amount_desc", cursor: first.next_cursor }, u.token);
      expect(sorted.data.field).to.equal("cursor");
      for (const forged of ["abc", "!!!", Buffer.from('{"v":1,"s":"date_desc","k":"x\' OR 1=1","i":"txn_x","f":"y"}').toString("base64url")]) {
        expect((await server.callError("list_transactions", { cursor: forged }, u.token)).data.field).to.equal("cursor");
      }
      // The same cursor with the same filters (in any key order) works.
      const next = await server.call("list_transactions", { direction: "expense", cursor: first.next_cursor, limit: 5 }, u.token);
      expect(next.transactions[0].id).to.not.equal(first.transactions[0].id);
    });

    it("summarises per currency and per group exactly as the test computes, transfers excluded", async () => {
      const compare = (got: any[], expected: Map<string, Figures>, label: string, keyOf: (g: any) => string) => {
        expect(got.length, label).to.equal(expected.size);
        for (const g of got) {
          const k = keyOf(g);
          const e = expected.get(k);
          expect(e, `${label} ${k}`).to.not.equal(undefined);
          const exp = EXPONENT[g.currency]!;
          expect(g.income, `${label} ${k} income`).to.deep.equal({ value: valueOf(e!.income, exp), currency: g.currency, minor: Number(e!.income) });
          expect(g.expenses, `${label} ${k} expenses`).to.deep.equal({ value: valueOf(e!.expenses, exp), currency: g.currency, minor: Number(e!.expenses) });
          expect(g.net.value, `${label} ${k} net`).to.equal(valueOf(e!.income - e!.expenses, exp));
          expect(g.count, `${label} ${k} count`).to.equal(e!.count);
        }
      };
      const ranges: [string, string][] = [["2026-01-01", "2026-04-30"], ["2026-02-10", "2026-03-09"], ["2026-03-31", "2026-03-31"], ["2027-01-01", "2027-12-31"]];
      for (const [from, to] of ranges) {
        for (const groupBy of [undefined, "category", "tag", "month", "wallet", "payee"] as const) {
          const res = await server.call("get_transaction_summary", { date_from: from, date_to: to, ...(groupBy ? { group_by: groupBy } : {}) }, u.token);
          const expected = expectedSummary(model, from, to, groupBy);
          const label = `${from}..${to} ${groupBy ?? "totals"}`;
          compare(res.totals, expected.totals, label, (g) => g.currency);
          if (!groupBy) {
            expect(res.groups, label).to.deep.equal([]);
            continue;
          }
          compare(res.groups, expected.groups, label, (g) => `${g.currency}|${g.key === null ? "∅" : groupBy === "wallet" ? g.key : String(g.key).toLowerCase()}`);
          if (groupBy === "wallet") for (const g of res.groups) expect(g.label).to.equal(model.wallets.find((w) => w.id === g.key)!.name);
          // Order: months ascending; otherwise expenses, largest first.
          for (let i = 1; i < res.groups.length; i++) {
            const a = res.groups[i - 1];
            const b = res.groups[i];
            if (groupBy === "month") expect(a.key <= b.key, label).to.equal(true);
            else expect(minorOf(a.expenses.value, EXPONENT[a.currency]!) >= minorOf(b.expenses.value, EXPONENT[b.currency]!), label).to.equal(true);
          }
        }
      }
      // One wallet only.
      const w = model.wallets[3]!;
      const one = await server.call("get_transaction_summary", { date_from: "2026-01-01", date_to: "2026-04-30", wallet_id: w.id, group_by: "category" }, u.token);
      const expected = expectedSummary(model, "2026-01-01", "2026-04-30", "category", w.id);
      compare(one.totals, expected.totals, "wallet", (g) => g.currency);
      compare(one.groups, expected.groups, "wallet groups", (g) => `${g.currency}|${g.key === null ? "∅" : String(g.key).toLowerCase()}`);
    });

    it("refuses a range that ends before it starts", async () => {
      const err = await server.callError("get_transaction_summary", { date_from: "2026-02-01", date_to: "2026-01-31" }, u.token);
      expect(err.data).to.include({ code: "invalid_params", field: "date_to" });
    });
  });
});
