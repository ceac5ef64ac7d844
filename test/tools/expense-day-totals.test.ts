/**
 * expense_day_totals and transactions.tags_key (migration 202611220101): the expense totals that budget
 * spending is read from, kept by triggers. After a seeded random sequence of writes through the tools
 * (expenses with and without categories and tags, income, transfers, updates of amount, date, wallet,
 * category, tags and direction, deletes, goal funding, refused writes) and after rows written directly in
 * SQL (multi-row tag inserts, tag updates and deletes, cascades), the table must equal a grouping of the
 * raw rows computed here in JavaScript, and a budget scoped by two tags must count an expense carrying
 * both once. A write that fails leaves the totals as they were. The expectations read transactions and
 * transaction_tags themselves, never the totals.
 *
 * The clock is fixed at 2026-03-15T12:00:00Z; the users are in UTC.
 */
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { withFailingInsert } from "../helpers/forced-failure.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { dateBetween, key, randomLedgerWrites, seeded } from "../writes/ledger-fixture.js";

const NOW = new Date("2026-03-15T12:00:00Z");

type Totals = Record<string, string>;

describe(`expense day totals (${engine})`, function () {
  this.timeout(180_000);
  let server: TestServer;

  before(async () => {
    server = await startTestServer({}, { now: () => NOW });
  });
  after(async () => server?.close());

  const keyOf = (r: { user_id: string; date: string; currency: string; wallet_id: string; category_key: string | null }, tags: readonly string[]) =>
    `${r.user_id}|${r.date}|${r.currency}|${r.wallet_id}|${r.category_key ?? ""}|${[...tags].sort().join(",")}`;

  /** The totals table as key → "sum/count" (exact strings); tags_key parsed, so the JSON spelling does not matter. */
  async function stored(): Promise<Totals> {
    const out: Totals = {};
    for (const r of await server.db("expense_day_totals")) {
      const k = keyOf(r, JSON.parse(r.tags_key) as string[]);
      expect(out[k], `one row per key: ${k}`).to.equal(undefined);
      out[k] = `${BigInt(r.total_minor)}/${BigInt(r.row_count)}`;
    }
    return out;
  }

  /** The same from every raw expense and its tag rows, in JavaScript. */
  async function recomputed(): Promise<Totals> {
    const tagsOf = new Map<string, string[]>();
    for (const g of await server.db("transaction_tags").select("transaction_id", "tag")) {
      tagsOf.set(g.transaction_id, [...(tagsOf.get(g.transaction_id) ?? []), g.tag]);
    }
    const sums = new Map<string, { total: bigint; count: bigint }>();
    for (const r of await server.db("transactions").where({ direction: "expense" })) {
      const k = keyOf(r, tagsOf.get(r.id) ?? []);
      const s = sums.get(k) ?? { total: 0n, count: 0n };
      s.total += BigInt(r.amount_minor);
      s.count += 1n;
      sums.set(k, s);
    }
    return Object.fromEntries([...sums].map(([k, s]) => [k, `${s.total}/${s.count}`]));
  }

  async function expectTotalsRight(context: string): Promise<void> {
    expect(await stored(), context).to.deep.equal(await recomputed());
    // tags_key itself follows the tag rows.
    const tagsOf = new Map<string, string[]>();
    for (const g of await server.db("transaction_tags").select("transaction_id", "tag")) tagsOf.set(g.transaction_id, [...(tagsOf.get(g.transaction_id) ?? []), g.tag]);
    for (const r of await server.db("transactions").select("id", "tags_key")) {
      expect([...(JSON.parse(r.tags_key) as string[])], `${context}: tags_key of ${r.id}`).to.deep.equal([...(tagsOf.get(r.id) ?? [])].sort());
    }
  }

  const CATEGORIES = ["Groceries", "Dining", "Café", null];
  const TAGS = ["trip", "coffee", "Work", "été", "a,b", 'q"uote'];

  it("match the raw rows after a random sequence of writes through the tools", async () => {
    const u = await server.createUser();
    const other = await server.createUser();
    const r = seeded(20261123);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
    const date = () => dateBetween(r, "2026-02-26", 6); // few days: many expenses share a row of totals
    const tags = () => (r() < 0.4 ? [] : [...new Set([pick(TAGS), ...(r() < 0.4 ? [pick(TAGS)] : [])])]);
    const wallet = async (who: TestUser, name: string, currency: string) =>
      (await server.call("create_wallet", { name, type: "checking", currency, idempotency_key: key() }, who.token)).wallet.id as string;
    const usd = [await wallet(u, "Checking", "USD"), await wallet(u, "Card", "USD")];
    const yen = await wallet(u, "Yen", "JPY");
    const otherWallet = await wallet(other, "Theirs", "USD");
    await server.call("create_transaction", { wallet_id: otherWallet, amount: "7.00", direction: "expense", category: "Dining", tags: ["trip"], date: "2026-03-01", idempotency_key: key() }, other.token);
    const goal = (await server.call("create_goal", { name: "Trip", currency: "USD", target_amount: "100000.00", idempotency_key: key() }, u.token)).goal.id;

    const categorised = () => {
      const category = pick(CATEGORIES);
      return category ? { category } : {};
    };
    const { committed } = await randomLedgerWrites(server, u, {
      usd,
      yen,
      goal,
      r,
      steps: 160,
      date,
      createExtras: () => ({ ...categorised(), tags: tags() }),
      updateExtras: () => (r() < 0.5 ? { tags: tags() } : r() < 0.5 ? { category: pick(CATEGORIES) } : { ...categorised(), tags: tags() }),
      every: 20,
      checkpoint: (i) => expectTotalsRight(`after step ${i}`),
    });
    expect(committed, "most random writes commit").to.be.greaterThan(120);
    // Whatever the random sequence gave, the totals also meet an uncategorised expense with a tag pair
    // on a day other expenses share (the claims below hold on every engine and seed).
    await server.call(
      "create_transaction",
      { wallet_id: usd[0], amount: "3.00", direction: "expense", tags: ["trip", "coffee"], date: "2026-02-27", idempotency_key: key() },
      u.token,
    );
    await server.call(
      "create_transaction",
      { wallet_id: usd[0], amount: "4.00", direction: "expense", tags: ["coffee", "trip"], date: "2026-02-27", idempotency_key: key() },
      u.token,
    );
    await expectTotalsRight("at the end");
    // The data set exercises what it claims to: rows of totals that hold several expenses, tag sets of two.
    const rows = await server.db("expense_day_totals").where({ user_id: u.id });
    expect(rows.some((x) => BigInt(x.row_count) > 1n)).to.equal(true);
    expect(rows.some((x) => (JSON.parse(x.tags_key) as string[]).length > 1)).to.equal(true);
    expect(rows.some((x) => x.category_key === "")).to.equal(true);
  });

  it("count an expense with two of a budget's tags once, and follow tag rows written directly in SQL", async () => {
    const u = await server.createUser();
    const w = (await server.call("create_wallet", { name: "W", type: "checking", currency: "USD", idempotency_key: key() }, u.token)).wallet.id;
    await server.call("create_budget", { name: "Trips and coffee", amount: "100.00", currency: "USD", period: "month", start_date: "2026-03-01", tags: ["Trip", "coffee"], idempotency_key: key() }, u.token);
    const spend = async (amount: string, tags: string[]) =>
      (await server.call("create_transaction", { wallet_id: w, amount, direction: "expense", date: "2026-03-10", tags, idempotency_key: key() }, u.token)).transaction.id as string;
    const both = await spend("10.00", ["trip", "coffee"]);
    const one = await spend("1.00", ["coffee", "work"]);
    await spend("5.00", ["work"]);
    const status = async () => (await server.call("get_budget_status", { as_of: "2026-03-15" }, u.token)).budgets[0];
    let s = await status();
    expect([s.spent.value, s.transaction_count]).to.deep.equal(["11.00", 2]);

    // Several tag rows in one statement (Postgres fires row triggers at the end of the statement).
    await server.db("transaction_tags").where({ transaction_id: one }).delete();
    await server.db("transaction_tags").insert([
      { transaction_id: one, user_id: u.id, tag: "trip" },
      { transaction_id: one, user_id: u.id, tag: "zz" },
      { transaction_id: one, user_id: u.id, tag: "coffee" },
    ]);
    await expectTotalsRight("after a multi-row tag insert");
    await server.db("transaction_tags").where({ transaction_id: both, tag: "coffee" }).update({ tag: "work" });
    await expectTotalsRight("after a tag row updated");
    s = await status();
    expect([s.spent.value, s.transaction_count]).to.deep.equal(["11.00", 2]);
    await server.db("transaction_tags").where({ transaction_id: both }).delete();
    s = await status();
    expect([s.spent.value, s.transaction_count]).to.deep.equal(["1.00", 1]);

    // A transaction deleted with its tags (the cascade), then a user deleted with everything.
    await server.db("transactions").where({ id: one }).delete();
    await expectTotalsRight("after a cascade to tag rows");
    await server.db("users").where({ id: u.id }).delete();
    expect(await server.db("expense_day_totals").where({ user_id: u.id })).to.have.length(0);
    await expectTotalsRight("after deleting a user");
  });

  it("stay as they were when a write fails after its rows were changed", async () => {
    const u = await server.createUser();
    const w = (await server.call("create_wallet", { name: "Main", type: "checking", currency: "USD", idempotency_key: key() }, u.token)).wallet.id;
    const plain = (await server.call("create_transaction", { wallet_id: w, amount: "12.34", direction: "expense", category: "Dining", tags: ["trip"], date: "2026-01-20", idempotency_key: key() }, u.token)).transaction.id;
    const before = await stored();
    await withFailingInsert(server.db, "audit_log", async () => {
      const failing: [string, Record<string, unknown>][] = [
        ["create_transaction", { wallet_id: w, amount: "1.00", direction: "expense", tags: ["coffee"], date: "2026-02-01" }],
        ["update_transaction", { transaction_id: plain, tags: ["coffee", "work"], category: "Groceries", amount: "99.00" }],
        ["update_transaction", { transaction_id: plain, direction: "income" }],
        ["delete_transaction", { transaction_id: plain }],
      ];
      for (const [tool, params] of failing) {
        const err = await server.callError(tool, { ...params, idempotency_key: key() }, u.token);
        expect(err.data.code, tool).to.equal("internal_error");
        expect(await stored(), tool).to.deep.equal(before);
      }
    });
    await server.call("update_transaction", { transaction_id: plain, tags: ["coffee", "work"], idempotency_key: key() }, u.token);
    expect(await stored()).to.not.deep.equal(before);
    await expectTotalsRight("after the write");
  });
});
