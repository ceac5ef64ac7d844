/**
 * Wallet tools on the engine FINANCE_TEST_ENGINE names: create/list/update/delete, the derived balance
 * (opening balance from opening_date, as_of, archived wallets, totals per currency), exact money, and
 * balances of a seeded random ledger checked against totals the test computes itself.
 */
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { expectedBalance, key, recordRandomLedger, valueOf, EXPONENT, type LedgerModel } from "../writes/ledger-fixture.js";

describe(`wallet tools (${engine})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  let user: TestUser;

  before(async () => {
    // "Today" is fixed: 2026-03-15 at 23:30 UTC, which is already 2026-03-16 in Tokyo.
    server = await startTestServer({}, { now: () => new Date("2026-03-15T23:30:00Z") });
    user = await server.createUser({ timezone: "Asia/Tokyo" });
  });
  after(async () => server?.close());

  const create = (params: Record<string, unknown>, token = user.token) => server.call("create_wallet", { type: "checking", currency: "USD", idempotency_key: key(), ...params }, token);

  describe("create_wallet", () => {
    it("creates a wallet whose balance is its opening balance", async () => {
      const res = await create({ name: "  Travel card ", type: "credit_card", opening_balance: "-120.00", opening_date: "2026-03-01", notes: "No fees" });
      expect(res.status).to.equal("committed");
      expect(res.audit_id).to.match(/^\d+$/);
      expect(res.warnings).to.deep.equal([]);
      expect(res.wallet).to.include({ name: "Travel card", type: "credit_card", currency: "USD", opening_date: "2026-03-01", archived: false, notes: "No fees" });
      expect(res.wallet.id).to.match(/^wal_[A-Za-z0-9]{16,40}$/);
      expect(res.wallet.opening_balance).to.deep.equal({ value: "-120.00", currency: "USD", minor: -12000 });
      expect(res.wallet.balance).to.deep.equal({ value: "-120.00", currency: "USD", minor: -12000 });
      expect(res.wallet.created_at).to.equal("2026-03-15T23:30:00.000Z");
    });

    it("defaults the opening balance to zero in the currency's precision", async () => {
      const jpy = await create({ name: "Yen", currency: "JPY" });
      expect(jpy.wallet.opening_balance).to.deep.equal({ value: "0", currency: "JPY", minor: 0 });
      const kwd = await create({ name: "Dinar", currency: "KWD", opening_balance: "1.005" });
      expect(kwd.wallet.balance).to.deep.equal({ value: "1.005", currency: "KWD", minor: 1005 });
    });

    it("refuses a name the user already has, case-insensitively, naming the field and the existing wallet", async () => {
      const first = await create({ name: "Everyday Checking" });
      const err = await server.callError("create_wallet", { name: "everyday CHECKING ", type: "cash", currency: "USD", idempotency_key: key() }, user.token);
      expect(err.data).to.include({ code: "conflict", field: "name", existing_id: first.wallet.id });
      // Another user may use the same name.
      const other = await server.createUser();
      expect((await create({ name: "Everyday Checking" }, other.token)).status).to.equal("committed");
    });

    it("refuses unknown currencies and bad opening balances with messages that name the field", async () => {
      const cases: [Record<string, unknown>, string, RegExp][] = [
        [{ currency: "ABC" }, "currency", /unknown currency/],
        [{ opening_balance: "1.234" }, "opening_balance", /at most 2 decimal/],
        [{ currency: "JPY", opening_balance: "100.5" }, "opening_balance", /JPY has no decimal places/],
        [{ opening_balance: 12.5 }, "opening_balance", /string/],
        [{ opening_balance: "1e3" }, "opening_balance", /pattern|exponent/],
        [{ opening_balance: "1,000.00" }, "opening_balance", /pattern|separator/],
      ];
      for (const [params, field, message] of cases) {
        const err = await server.callError("create_wallet", { name: `Bad ${field} ${Math.random()}`, type: "cash", currency: "USD", idempotency_key: key(), ...params }, user.token);
        expect(err.data.code, JSON.stringify(params)).to.equal("invalid_params");
        expect(err.data.field, JSON.stringify(params)).to.equal(field);
        expect(err.message, JSON.stringify(params)).to.match(message).and.to.include(field);
      }
    });
  });

  describe("update_wallet", () => {
    it("changes only the fields given, clears with null, and keeps the currency", async () => {
      const w = (await create({ name: "Jar", type: "cash", opening_balance: "10.00", opening_date: "2026-01-01", notes: "kitchen" })).wallet;
      const renamed = await server.call("update_wallet", { wallet_id: w.id, name: "Cookie jar", idempotency_key: key() }, user.token);
      expect(renamed.wallet).to.deep.include({ name: "Cookie jar", type: "cash", currency: "USD", opening_date: "2026-01-01", notes: "kitchen", archived: false });
      expect(renamed.wallet.opening_balance.value).to.equal("10.00");
      const cleared = await server.call("update_wallet", { wallet_id: w.id, opening_date: null, notes: null, opening_balance: "-3.50", idempotency_key: key() }, user.token);
      expect(cleared.wallet).to.deep.include({ name: "Cookie jar", opening_date: null, notes: null });
      expect(cleared.wallet.balance.value).to.equal("-3.50");
      // Renaming to its own name in another case is fine; to another wallet's name is a conflict.
      expect((await server.call("update_wallet", { wallet_id: w.id, name: "COOKIE JAR", idempotency_key: key() }, user.token)).wallet.name).to.equal("COOKIE JAR");
      const other = (await create({ name: "Piggy bank" })).wallet;
      const err = await server.callError("update_wallet", { wallet_id: w.id, name: "piggy BANK", idempotency_key: key() }, user.token);
      expect(err.data).to.include({ code: "conflict", field: "name", existing_id: other.id });
      // The currency is fixed: `currency` names the currency of opening_balance, and one other than the
      // wallet's is refused (it never changes the wallet's).
      const cur = await server.callError("update_wallet", { wallet_id: w.id, opening_balance: "5.00", currency: "EUR", idempotency_key: key() }, user.token);
      expect(cur.data).to.include({ code: "invalid_params", field: "currency" });
      const none = await server.callError("update_wallet", { wallet_id: w.id, idempotency_key: key() }, user.token);
      expect(none.data.code).to.equal("invalid_params");
    });

    it("archives and restores: archived wallets leave default lists and totals, keep their history", async () => {
      const u = await server.createUser();
      const a = (await create({ name: "A", opening_balance: "5.00" }, u.token)).wallet;
      const b = (await create({ name: "B", opening_balance: "7.00" }, u.token)).wallet;
      await server.call("update_wallet", { wallet_id: b.id, archived: true, idempotency_key: key() }, u.token);
      expect((await server.call("list_wallets", {}, u.token)).wallets.map((w: any) => w.id)).to.deep.equal([a.id]);
      expect((await server.call("list_wallets", { include_archived: true }, u.token)).wallets.map((w: any) => w.id)).to.deep.equal([a.id, b.id]);
      const all = await server.call("get_wallet_balance", {}, u.token);
      expect(all.totals).to.deep.equal([{ value: "5.00", currency: "USD", minor: 500 }]);
      const one = await server.call("get_wallet_balance", { wallet_id: b.id }, u.token);
      // Each balance names the wallet's type, so "how much is on my cards?" needs no second call.
      expect(one.wallets).to.deep.equal([{ wallet_id: b.id, name: "B", type: "checking", currency: "USD", balance: { value: "7.00", currency: "USD", minor: 700 } }]);
      await server.call("update_wallet", { wallet_id: b.id, archived: false, idempotency_key: key() }, u.token);
      expect((await server.call("get_wallet_balance", {}, u.token)).totals[0].value).to.equal("12.00");
    });
  });

  describe("delete_wallet", () => {
    it("deletes an empty wallet and answers its snapshot", async () => {
      const w = (await create({ name: "Temporary", opening_balance: "1.00" })).wallet;
      const res = await server.call("delete_wallet", { wallet_id: w.id, idempotency_key: key() }, user.token);
      expect(res.status).to.equal("committed");
      expect(res.wallet).to.deep.equal(w);
      const err = await server.callError("get_wallet_balance", { wallet_id: w.id }, user.token);
      expect(err.data).to.include({ code: "not_found", field: "wallet_id" });
    });

    it("refuses a wallet with transactions (wallet_not_empty, suggesting archiving)", async () => {
      const w = (await create({ name: "Busy" })).wallet;
      await server.call("create_transaction", { wallet_id: w.id, amount: "1.00", direction: "expense", idempotency_key: key() }, user.token);
      const err = await server.callError("delete_wallet", { wallet_id: w.id, idempotency_key: key() }, user.token);
      expect(err.data).to.include({ code: "wallet_not_empty", field: "wallet_id", transaction_count: 1 });
      expect(err.message).to.include("archived: true");
    });

    it("refuses a wallet that only receives transfers (the incoming leg is in it)", async () => {
      const from = (await create({ name: "From" })).wallet;
      const to = (await create({ name: "To" })).wallet;
      await server.call("create_transaction", { wallet_id: from.id, to_wallet_id: to.id, amount: "1.00", direction: "transfer", idempotency_key: key() }, user.token);
      expect((await server.callError("delete_wallet", { wallet_id: to.id, idempotency_key: key() }, user.token)).data.code).to.equal("wallet_not_empty");
    });

    it("refuses a wallet a goal, budget or bill reminder refers to (conflict on wallet_id)", async () => {
      const at = new Date().toISOString();
      for (const kind of ["goal", "budget", "bill_reminder"] as const) {
        const w = (await create({ name: `Referenced by ${kind}` })).wallet;
        const id = `${kind.slice(0, 3)}_ref${Math.random().toString(36).slice(2, 18).padEnd(16, "0")}`;
        if (kind === "goal") {
          await server.db("goals").insert({ id, user_id: user.id, name: "Trip", name_normalized: `trip ${id}`, currency: "USD", wallet_id: w.id, created_at: at, updated_at: at });
        } else if (kind === "budget") {
          await server.db("budgets").insert({ id, user_id: user.id, name: "Food", name_normalized: `food ${id}`, amount_minor: 100, currency: "USD", period: "monthly", anchor_date: "2026-01-01", start_date: "2026-01-01", wallet_ids: JSON.stringify([w.id]), created_at: at, updated_at: at });
        } else {
          await server.db("bill_reminders").insert({ id, user_id: user.id, name: "Rent", currency: "USD", wallet_id: w.id, schedule: "{}", rrule: "FREQ=MONTHLY", start_date: "2026-01-01", created_at: at, updated_at: at });
        }
        const err = await server.callError("delete_wallet", { wallet_id: w.id, idempotency_key: key() }, user.token);
        expect(err.data, kind).to.include({ code: "conflict", field: "wallet_id", existing_id: id, reason: `referenced_by_${kind}` });
        expect(await server.db("wallets").where({ id: w.id }).first(), kind).to.not.equal(undefined);
      }
    });
  });

  describe("balances", () => {
    it("counts the opening balance from opening_date and transactions up to as_of; as_of defaults to today in the user's timezone", async () => {
      const u = await server.createUser({ timezone: "Asia/Tokyo" });
      const w = (await create({ name: "Main", opening_balance: "100.00", opening_date: "2026-02-01" }, u.token)).wallet;
      const tx = (date: string, amount: string, direction: string) => server.call("create_transaction", { wallet_id: w.id, date, amount, direction, idempotency_key: key() }, u.token);
      await tx("2026-01-15", "10.00", "income");
      await tx("2026-02-10", "30.00", "expense");
      await tx("2026-03-16", "1.00", "expense"); // today in Tokyo
      await tx("2026-03-17", "1000.00", "income"); // tomorrow
      const at = async (as_of?: string) => (await server.call("get_wallet_balance", { wallet_id: w.id, ...(as_of ? { as_of } : {}) }, u.token)).wallets[0].balance.value;
      expect(await at("2026-01-20")).to.equal("10.00"); // before opening_date: the opening balance does not count yet
      expect(await at("2026-02-01")).to.equal("110.00");
      expect(await at("2026-02-10")).to.equal("80.00");
      expect(await at()).to.equal("79.00");
      expect((await server.call("get_wallet_balance", {}, u.token)).as_of).to.equal("2026-03-16");
      // list_wallets: the balance as of today too, and tomorrow's income apart, as scheduled.
      const listed = await server.call("list_wallets", {}, u.token);
      expect(listed.as_of).to.equal("2026-03-16");
      expect(listed.wallets[0].balance.value).to.equal("79.00");
      expect(listed.wallets[0].scheduled.value).to.equal("1000.00");
    });

    it("adds amounts that floats get wrong exactly (0.10 + 0.20; past 2^53 minor units in CLF)", async () => {
      const u = await server.createUser();
      const small = (await create({ name: "Small", opening_balance: "0.10", currency: "CLF" }, u.token)).wallet;
      await server.call("create_transaction", { wallet_id: small.id, amount: "0.20", direction: "income", idempotency_key: key() }, u.token);
      // CLF has 4 decimals: 900719925474.0993 is 2^53 + 1 minor units, below the amount bound (1e12).
      const big = (await create({ name: "Big", opening_balance: "900719925474.0993", currency: "CLF" }, u.token)).wallet;
      await server.call("create_transaction", { wallet_id: big.id, amount: "0.01", direction: "expense", idempotency_key: key() }, u.token);
      await server.call("create_transaction", { wallet_id: big.id, amount: "900719925474.0993", direction: "income", idempotency_key: key() }, u.token);
      const res = await server.call("get_wallet_balance", {}, u.token);
      const byName = Object.fromEntries(res.wallets.map((w: any) => [w.name, w.balance]));
      expect(byName.Small).to.deep.equal({ value: "0.3000", currency: "CLF", minor: 3000 });
      expect(byName.Big.value).to.equal("1801439850948.1886");
      expect(res.totals).to.have.length(1);
      expect(res.totals[0].value).to.equal("1801439850948.4886");
      expect(0.1 + 0.2).to.not.equal(0.3); // the trap the strings avoid
    });

    describe("a seeded random ledger", () => {
      let u: TestUser;
      let model: LedgerModel;
      before(async () => {
        u = await server.createUser({ timezone: "UTC" });
        model = await recordRandomLedger(server, u, 20261121, 90);
      });

      it("has the balances and totals per currency the test computes itself, on several days", async () => {
        for (const asOf of ["2025-12-31", "2026-01-01", "2026-01-10", "2026-02-14", "2026-02-15", "2026-03-31", "2026-04-30"]) {
          const res = await server.call("get_wallet_balance", { as_of: asOf }, u.token);
          const visible = model.wallets.filter((w) => !w.archived);
          expect(res.wallets.map((w: any) => w.wallet_id).sort(), asOf).to.deep.equal(visible.map((w) => w.id).sort());
          const totals = new Map<string, bigint>();
          for (const w of visible) {
            const expected = expectedBalance(model, w, asOf);
            const got = res.wallets.find((x: any) => x.wallet_id === w.id);
            // Before its opening day, with nothing recorded yet, a wallet did not exist: no balance, not 0.00.
            if (w.openingDate !== null && asOf < w.openingDate && !model.legs.some((l) => l.walletId === w.id && l.date <= asOf)) {
              expect(got, `${w.name} ${asOf}`).to.deep.include({ balance: null, opened_on: w.openingDate });
              continue;
            }
            expect(got.balance, `${w.name} ${asOf}`).to.deep.equal({ value: valueOf(expected, EXPONENT[w.currency]!), currency: w.currency, minor: Number(expected) });
            totals.set(w.currency, (totals.get(w.currency) ?? 0n) + expected);
          }
          const expectedTotals = [...totals.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([c, m]) => ({ value: valueOf(m, EXPONENT[c]!), currency: c, minor: Number(m) }));
          expect(res.totals, asOf).to.deep.equal(expectedTotals);
        }
        // The archived wallet, asked for by id, and every wallet's current balance in list_wallets.
        const archived = model.wallets.find((w) => w.archived)!;
        const one = await server.call("get_wallet_balance", { wallet_id: archived.id, as_of: "2026-04-30" }, u.token);
        expect(one.wallets[0].balance.value).to.equal(valueOf(expectedBalance(model, archived, "2026-04-30"), 2));
        // list_wallets: as of today (the user's, UTC here), what is dated later apart in scheduled.
        const listed = await server.call("list_wallets", { include_archived: true }, u.token);
        for (const w of model.wallets) {
          const got = listed.wallets.find((x: any) => x.id === w.id);
          const upToToday = expectedBalance(model, w, listed.as_of);
          expect(got.balance.value, w.name).to.equal(valueOf(upToToday, EXPONENT[w.currency]!));
          const later = expectedBalance(model, w) - upToToday;
          expect(got.scheduled?.value, w.name).to.equal(later === 0n ? undefined : valueOf(later, EXPONENT[w.currency]!));
          expect(got.archived, w.name).to.equal(w.archived);
        }
      });
    });
  });
});
