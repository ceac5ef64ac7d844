/**
 * wallet_month_totals (migration 202611220001): the per-wallet monthly sums that balances are read from,
 * kept by triggers on transactions. After a seeded random sequence of writes through the tools (creates,
 * transfers, updates of amount, date across months and wallet, direction switches, deletes, goal funding
 * from a wallet, refused writes) and after rows written directly in SQL, the table must equal a GROUP BY
 * of the raw rows, and every balance must equal a recomputation from the raw rows — at month boundaries,
 * before an opening date, today, and with future-dated rows. A write that fails leaves the totals as they
 * were. The expectations read the transactions table itself, never the totals.
 *
 * The clock is fixed at 2026-03-15T12:00:00Z; the users are in UTC.
 */
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { withFailingInsert } from "../helpers/forced-failure.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { dateBetween, key, randomLedgerWrites, seeded } from "../writes/ledger-fixture.js";

const NOW = new Date("2026-03-15T12:00:00Z");
const TODAY = "2026-03-15";

type Totals = Record<string, string>;

describe(`wallet monthly totals (${engine})`, function () {
  this.timeout(180_000);
  let server: TestServer;

  before(async () => {
    server = await startTestServer({}, { now: () => NOW });
  });
  after(async () => server?.close());

  /** The totals table as "user|wallet|month" → minor units (as strings, exact). */
  async function stored(): Promise<Totals> {
    const out: Totals = {};
    for (const r of await server.db("wallet_month_totals").select("user_id", "wallet_id", "month", "total_minor")) {
      out[`${r.user_id}|${r.wallet_id}|${r.month}`] = BigInt(r.total_minor).toString();
    }
    return out;
  }

  /** The same, recomputed from every raw transaction row in JavaScript (zero months are absent). */
  async function recomputed(): Promise<Totals> {
    const sums = new Map<string, bigint>();
    for (const r of await server.db("transactions").select("user_id", "wallet_id", "date", "amount_minor")) {
      const k = `${r.user_id}|${r.wallet_id}|${String(r.date).slice(0, 7)}`;
      sums.set(k, (sums.get(k) ?? 0n) + BigInt(r.amount_minor));
    }
    const out: Totals = {};
    for (const [k, v] of sums) if (v !== 0n) out[k] = v.toString();
    return out;
  }

  async function expectTotalsRight(context: string): Promise<void> {
    expect(await stored(), context).to.deep.equal(await recomputed());
  }

  /** Every wallet's balance at the end of asOf (undefined: every row, opening balance always), from raw rows. */
  async function expectedBalances(userId: string, asOf?: string): Promise<Map<string, bigint>> {
    const out = new Map<string, bigint>();
    for (const w of await server.db("wallets").where({ user_id: userId })) {
      const counts = asOf === undefined || w.opening_date == null || w.opening_date <= asOf;
      out.set(w.id, counts ? BigInt(w.opening_balance_minor) : 0n);
    }
    for (const r of await server.db("transactions").where({ user_id: userId }).select("wallet_id", "date", "amount_minor")) {
      if (asOf === undefined || r.date <= asOf) out.set(r.wallet_id, out.get(r.wallet_id)! + BigInt(r.amount_minor));
    }
    return out;
  }

  const minorOfAnswer = (m: { minor: number; value: string }) => BigInt(m.value.replace(".", ""));

  async function expectBalancesRight(u: TestUser, asOfs: string[], context: string): Promise<void> {
    for (const asOf of asOfs) {
      const res = await server.call("get_wallet_balance", { as_of: asOf }, u.token);
      const expected = await expectedBalances(u.id, asOf);
      // A wallet that did not exist yet (before its opening day, nothing recorded) has no balance: 0 here.
      const got = new Map(res.wallets.map((w: any) => [w.wallet_id, w.balance === null ? 0n : minorOfAnswer(w.balance)]));
      expect(got, `${context} as_of ${asOf}`).to.deep.equal(expected);
    }
    const today = await server.call("get_wallet_balance", {}, u.token);
    expect(today.as_of).to.equal(TODAY);
    expect(new Map(today.wallets.map((w: any) => [w.wallet_id, minorOfAnswer(w.balance)])), `${context} today`).to.deep.equal(await expectedBalances(u.id, TODAY));
    // list_wallets: as of today too; the future-dated rows apart, so both together count every row.
    const listed = await server.call("list_wallets", {}, u.token);
    expect(new Map(listed.wallets.map((w: any) => [w.id, minorOfAnswer(w.balance)])), `${context} list_wallets`).to.deep.equal(await expectedBalances(u.id, TODAY));
    const everything = await expectedBalances(u.id);
    const openingLater = new Map<string, bigint>();
    for (const w of await server.db("wallets").where({ user_id: u.id }))
      openingLater.set(w.id, w.opening_date != null && w.opening_date > TODAY ? BigInt(w.opening_balance_minor) : 0n);
    expect(
      new Map(listed.wallets.map((w: any) => [w.id, minorOfAnswer(w.balance) + (w.scheduled ? minorOfAnswer(w.scheduled) : 0n) + openingLater.get(w.id)!])),
      `${context} list_wallets with scheduled`,
    ).to.deep.equal(everything);
    // Write results carry the wallet with its balance too.
    for (const w of listed.wallets) {
      const one = await server.call("update_wallet", { wallet_id: w.id, notes: `checked ${key()}`, idempotency_key: key() }, u.token);
      expect(one.wallet.balance, `${context} update_wallet`).to.deep.equal(w.balance);
    }
  }

  /** First and last day of every month from 2025-11 to 2026-08, the days around the opening dates, and a few others. */
  function boundaryDays(openingDates: string[]): string[] {
    const days = new Set<string>(["2025-01-01", "2099-12-31", TODAY, "2026-03-14", "2026-03-16", "2026-02-28", "2026-03-01"]);
    for (let m = 0; m < 10; m++) {
      const first = new Date(Date.UTC(2025, 10 + m, 1));
      const last = new Date(Date.UTC(2025, 11 + m, 0));
      days.add(first.toISOString().slice(0, 10));
      days.add(last.toISOString().slice(0, 10));
    }
    for (const d of openingDates) {
      const day = new Date(`${d}T00:00:00Z`);
      days.add(d);
      day.setUTCDate(day.getUTCDate() - 1);
      days.add(day.toISOString().slice(0, 10));
    }
    return [...days].sort();
  }

  it("match the raw rows after a random sequence of creates, transfers, updates, deletes and goal funding", async () => {
    const u = await server.createUser();
    const other = await server.createUser();
    const r = seeded(20261122);
    const date = () => dateBetween(r, "2025-12-01", 240); // into 2026-07: future-dated rows too
    const wallet = async (who: TestUser, name: string, currency: string, opening: string, openingDate?: string) =>
      (await server.call("create_wallet", { name, type: "checking", currency, opening_balance: opening, ...(openingDate ? { opening_date: openingDate } : {}), idempotency_key: key() }, who.token)).wallet.id as string;
    const usd = [await wallet(u, "Checking", "USD", "1000.00", "2026-01-15"), await wallet(u, "Savings", "USD", "0.10"), await wallet(u, "Card", "USD", "-50.00", "2026-03-01")];
    const yen = await wallet(u, "Yen", "JPY", "5000", "2025-12-31");
    const otherWallet = await wallet(other, "Theirs", "USD", "1.00");
    await server.call("create_transaction", { wallet_id: otherWallet, amount: "7.00", direction: "expense", date: "2026-02-03", idempotency_key: key() }, other.token);
    const goal = (await server.call("create_goal", { name: "Trip", currency: "USD", target_amount: "100000.00", idempotency_key: key() }, u.token)).goal.id;

    const { committed, refused } = await randomLedgerWrites(server, u, { usd, yen, goal, r, steps: 160, date, every: 20, checkpoint: (i) => expectTotalsRight(`after step ${i}`) });
    expect(committed, "most random writes commit").to.be.greaterThan(120);
    expect(refused, "some are refused (moves across currencies, onto the counterpart)").to.be.greaterThan(0);
    await expectTotalsRight("at the end");
    const rows = await server.db("transactions").where({ user_id: u.id }).select("date");
    expect(rows.some((x) => x.date > TODAY), "future-dated rows exist").to.equal(true);
    const openings = (await server.db("wallets").where({ user_id: u.id }).whereNotNull("opening_date").select("opening_date")).map((w) => String(w.opening_date));
    await expectBalancesRight(u, boundaryDays(openings), "random ledger");
    await expectBalancesRight(other, ["2026-02-02", "2026-02-03", "2026-02-28"], "other user");
  });

  it("follow rows written directly in SQL, sums past 2^53, and a user deleted with their rows", async () => {
    const u = await server.createUser();
    const a = (await server.call("create_wallet", { name: "A", type: "checking", currency: "USD", idempotency_key: key() }, u.token)).wallet.id;
    const b = (await server.call("create_wallet", { name: "B", type: "checking", currency: "USD", idempotency_key: key() }, u.token)).wallet.id;
    const at = NOW.toISOString();
    const row = (id: string, wallet: string, date: string, minor: bigint) => ({
      id, user_id: u.id, wallet_id: wallet, date, amount_minor: engine === "postgres" ? minor.toString() : minor, currency: "USD", direction: minor < 0n ? "expense" : "income", created_at: at, updated_at: at,
    });
    const big = 9007199254740993n; // 2^53 + 1
    await server.db("transactions").insert([
      row("txn_sql1", a, "2026-01-31", big),
      row("txn_sql2", a, "2026-02-01", big),
      row("txn_sql3", a, "2026-02-01", -5n),
      row("txn_sql4", b, "2026-03-15", 700n),
      row("txn_sql5", b, "2026-03-16", 11n),
    ]);
    await expectTotalsRight("after direct inserts");
    await server.db("transactions").where({ id: "txn_sql3" }).update({ date: "2026-03-01" });
    await server.db("transactions").where({ id: "txn_sql4" }).update({ wallet_id: a, amount_minor: engine === "postgres" ? "-700" : -700n });
    await server.db("transactions").where({ id: "txn_sql5" }).update({ payee: "only a payee" });
    await server.db("transactions").where({ id: "txn_sql1" }).update({ date: "2026-01-02" }); // same month
    await expectTotalsRight("after direct updates");
    await expectBalancesRight(u, ["2026-01-01", "2026-01-02", "2026-01-30", "2026-01-31", "2026-02-01", "2026-02-28", "2026-03-01", "2026-03-15", "2026-03-16"], "direct rows");
    const bal = await server.call("get_wallet_balance", { wallet_id: a, as_of: "2026-02-01" }, u.token);
    expect(bal.wallets[0].balance.value).to.equal("180143985094819.86"); // 2 × (2^53 + 1) cents, exactly
    // A month that sums to zero leaves no row, and deleting one of its rows brings the row back.
    await server.db("transactions").insert(row("txn_sql6", b, "2026-05-05", -11n));
    await server.db("transactions").where({ id: "txn_sql5" }).update({ date: "2026-05-20" });
    expect(await server.db("wallet_month_totals").where({ wallet_id: b, month: "2026-05" })).to.have.length(0);
    await server.db("transactions").where({ id: "txn_sql6" }).delete();
    await expectTotalsRight("after a zero month came back");
    await server.db("transactions").where({ user_id: u.id }).delete();
    expect(await server.db("wallet_month_totals").where({ user_id: u.id })).to.have.length(0);
    await expectTotalsRight("after deleting the rows");

    // Deleting a user cascades to their transactions, and the totals follow.
    const gone = await server.createUser();
    const w = (await server.call("create_wallet", { name: "W", type: "cash", currency: "USD", idempotency_key: key() }, gone.token)).wallet.id;
    await server.call("create_transaction", { wallet_id: w, amount: "3.00", direction: "expense", date: "2026-01-02", idempotency_key: key() }, gone.token);
    expect(await server.db("wallet_month_totals").where({ user_id: gone.id })).to.have.length(1);
    await server.db("users").where({ id: gone.id }).delete();
    expect(await server.db("transactions").where({ user_id: gone.id })).to.have.length(0);
    expect(await server.db("wallet_month_totals").where({ user_id: gone.id })).to.have.length(0);
    await expectTotalsRight("after deleting a user");
  });

  it("stay as they were when a write fails after its rows were changed", async () => {
    const u = await server.createUser();
    const w = (await server.call("create_wallet", { name: "Main", type: "checking", currency: "USD", idempotency_key: key() }, u.token)).wallet.id;
    const w2 = (await server.call("create_wallet", { name: "Other", type: "checking", currency: "USD", idempotency_key: key() }, u.token)).wallet.id;
    const plain = (await server.call("create_transaction", { wallet_id: w, amount: "12.34", direction: "expense", date: "2026-01-20", idempotency_key: key() }, u.token)).transaction.id;
    const transfer = (await server.call("create_transaction", { wallet_id: w, to_wallet_id: w2, amount: "50.00", direction: "transfer", date: "2026-02-10", idempotency_key: key() }, u.token)).transaction.id;
    const before = await stored();
    const balancesBefore = await server.call("get_wallet_balance", { as_of: "2026-02-28" }, u.token);
    await withFailingInsert(server.db, "audit_log", async () => {
      const failing: [string, Record<string, unknown>][] = [
        ["create_transaction", { wallet_id: w, amount: "1.00", direction: "income", date: "2026-02-01" }],
        ["create_transaction", { wallet_id: w, to_wallet_id: w2, amount: "2.00", direction: "transfer", date: "2026-03-01" }],
        ["update_transaction", { transaction_id: plain, date: "2026-03-02", amount: "99.00", wallet_id: w2 }],
        ["update_transaction", { transaction_id: transfer, date: "2026-01-01", amount: "1.00" }],
        ["delete_transaction", { transaction_id: transfer }],
        ["delete_transaction", { transaction_id: plain }],
      ];
      for (const [tool, params] of failing) {
        const err = await server.callError(tool, { ...params, idempotency_key: key() }, u.token);
        expect(err.data.code, tool).to.equal("internal_error");
        expect(await stored(), tool).to.deep.equal(before);
      }
    });
    expect(await server.call("get_wallet_balance", { as_of: "2026-02-28" }, u.token)).to.deep.equal(balancesBefore);
    await expectTotalsRight("after the failures");
    // The same writes go through once nothing forces a failure, and the totals follow them.
    await server.call("update_transaction", { transaction_id: plain, date: "2026-03-02", amount: "99.00", wallet_id: w2, idempotency_key: key() }, u.token);
    await server.call("delete_transaction", { transaction_id: transfer, idempotency_key: key() }, u.token);
    expect(await stored()).to.not.deep.equal(before);
    await expectTotalsRight("after the writes");
    await expectBalancesRight(u, ["2026-01-31", "2026-02-28", "2026-03-01", "2026-03-02"], "after failures");
  });
});
