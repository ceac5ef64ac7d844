/**
 * The batched budget spending (one statement for many budgets, src/domain/budgets/status.ts) against the
 * per-budget query it replaced, kept below as the reference, on a randomized ledger: budgets of every
 * period unit, intervals 1–3, anchors on any day (29th–31st included), short first periods, end dates,
 * rollover, scopes by category (in other letter cases and Unicode forms), tag and wallet, two currencies,
 * income and transfers, and amounts whose sums pass 2^53. Both engines.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import type { Knex } from "knex";
import type { BudgetPeriod, BudgetStatus, Warning } from "../../generated/types.js";
import { budgetsPushedOverLimit, expenseInScope, overLimitWarning, type RecordedExpense } from "../../src/domain/budgets/over-limit.js";
import { computeBudgetStatuses, statusFromDays, statusWindow, type DailySpending, type Scope } from "../../src/domain/budgets/status.js";
import { budgetActiveOn, insertBudget, listBudgetRecords, type BudgetRecord } from "../../src/domain/budgets/store.js";
import { plusDays } from "../../src/domain/budgets/periods.js";
import { insertTransaction } from "../../src/domain/transactions/store.js";
import { foldKey } from "../../src/domain/shared/text.js";
import { toMinorBigInt, type MinorLike } from "../../src/money/amount.js";
import { newId } from "../../src/db/ids.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { seeded } from "../writes/ledger-fixture.js";

/** The per-budget spending query as it was before batching: one statement per budget. */
async function referenceDailySpending(db: Knex, userId: string, scope: Scope, from: string, to: string): Promise<DailySpending[]> {
  if (to < from) return [];
  const q = db("transactions as t")
    .select("t.date")
    .sum({ total: "t.amount_minor" })
    .count({ n: "*" })
    .where("t.user_id", userId)
    .andWhere("t.direction", "expense")
    .andWhere("t.currency", scope.currency)
    .andWhere("t.date", ">=", from)
    .andWhere("t.date", "<=", to)
    .groupBy("t.date")
    .orderBy("t.date");
  if (scope.categories.length > 0) q.whereIn("t.category_key", [...new Set(scope.categories.map(foldKey))]);
  if (scope.walletIds.length > 0) q.whereIn("t.wallet_id", [...scope.walletIds]);
  if (scope.tags.length > 0) {
    const tags = [...new Set(scope.tags.map(foldKey))];
    q.whereExists(function () {
      this.select(db.raw("1")).from("transaction_tags as g").whereRaw("g.transaction_id = t.id").whereIn("g.tag", tags);
    });
  }
  const rows = (await q) as { date: string; total: MinorLike | null; n: MinorLike }[];
  return rows.map((r) => ({ date: String(r.date), spent: -toMinorBigInt(r.total ?? 0), count: Number(r.n), refunds: 0n }));
}

/** computeBudgetStatus as it was: the reference query, then the (unchanged) bucketing into periods. */
async function referenceStatus(db: Knex, b: BudgetRecord, asOf: string): Promise<BudgetStatus> {
  const from = b.rollover === "carry_unspent" ? b.startDate : statusWindow(b, asOf).periodStart;
  const days = await referenceDailySpending(db, b.userId, { currency: b.currency, categories: b.categories, tags: b.tags, walletIds: b.walletIds }, from, asOf);
  return statusFromDays(b, asOf, days);
}

/** budgetsPushedOverLimit as it was: one status per budget in scope. */
async function referenceOverLimit(db: Knex, userId: string, e: RecordedExpense): Promise<Warning[]> {
  const warnings: Warning[] = [];
  for (const b of await listBudgetRecords(db, userId)) {
    if (!budgetActiveOn(b, e.date) || !expenseInScope(b, e)) continue;
    const s = await referenceStatus(db, b, statusWindow(b, e.date).periodEnd);
    const warning = overLimitWarning(b, s, e.amountMinor);
    if (warning) warnings.push(warning);
  }
  return warnings;
}

const FIRST_DAY = "2025-01-01";
const DAYS = 520; // through 2026-06-04
// Above the amount bound (inserted below the tools, which would refuse it) yet within a wallet's running-total
// bound (docs/reliability.md): nineteen of them pass 2^53 (9_007_199_254_740_992).
const BIG = 500_000_000_000_000n;

describe(`budget spending in one statement (${engine})`, function () {
  let server: TestServer;
  let user: TestUser;
  let other: TestUser;
  const rnd = seeded(20260315);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const day = (n: number) => plusDays(FIRST_DAY, n);
  let usd: string[] = [];
  let eur: string;
  let budgets: BudgetRecord[] = [];

  // Spellings the ledger folds to the same key ("café" in NFC and NFD, other cases, spaces).
  const categories = ["Groceries", "groceries", " GROCERIES ", "Dining", "Café", "Cafe\u0301", "CAFÉ", "Transport", "Rent"];
  const tags = ["Trip", "trip", "coffee", "Work", "ÉTÉ", "été"];

  before(async () => {
    server = await startTestServer();
    user = await server.createUser({ timezone: "Pacific/Kiritimati", currency: "USD" });
    other = await server.createUser({ timezone: "UTC", currency: "USD" });
    const wallet = async (u: TestUser, name: string, currency: string) =>
      (await server.call("create_wallet", { name, type: "checking", currency, idempotency_key: randomUUID() }, u.token)).wallet.id as string;
    usd = [await wallet(user, "Checking", "USD"), await wallet(user, "Card", "USD")];
    eur = await wallet(user, "Euro", "EUR");
    const otherWallet = await wallet(other, "Checking", "USD");

    const now = new Date("2026-03-15T12:00:00Z");
    for (let i = 0; i < 700; i++) {
      const eurTxn = rnd() < 0.2;
      const drawn = rnd() < 0.8 ? "expense" : rnd() < 0.5 ? "income" : "transfer";
      const direction = drawn === "transfer" && eurTxn ? "expense" : drawn; // one EUR wallet: no EUR transfers
      const walletId = eurTxn ? eur : pick(usd);
      await insertTransaction(server.db, user.id, {
        walletId,
        date: day(Math.floor(rnd() * DAYS)),
        amountMinor: rnd() < 0.03 ? BIG + BigInt(Math.floor(rnd() * 1000)) : BigInt(1 + Math.floor(rnd() * 50_000)),
        direction,
        toWalletId: direction === "transfer" ? usd.find((w) => w !== walletId) : null,
        category: rnd() < 0.15 ? null : pick(categories),
        tags: rnd() < 0.5 ? [] : [pick(tags), ...(rnd() < 0.3 ? [pick(tags)] : [])],
        now,
      });
    }
    // The other user's spending must never count.
    for (let i = 0; i < 50; i++) {
      await insertTransaction(server.db, other.id, { walletId: otherWallet, date: day(Math.floor(rnd() * DAYS)), amountMinor: 10_000n, direction: "expense", category: "Groceries", tags: ["trip"], now });
    }

    const periods: BudgetPeriod[] = ["week", "month", "quarter", "year"];
    for (let i = 0; i < 40; i++) {
      const currency = rnd() < 0.25 ? "EUR" : "USD";
      const anchor = day(Math.floor(rnd() * DAYS) - 200);
      const start = day(Math.floor(rnd() * (DAYS - 60)));
      const sub = <T>(xs: readonly T[], p: number): T[] => (rnd() < p ? [...new Set(xs.filter(() => rnd() < 0.35))] : []);
      const walletIds = currency === "EUR" ? (rnd() < 0.3 ? [eur] : []) : sub(usd, 0.4);
      const at = new Date().toISOString();
      const b: BudgetRecord = {
        id: newId("bud"),
        userId: user.id,
        name: `Budget ${i}`,
        amountMinor: rnd() < 0.1 ? BIG : BigInt(10_000 + Math.floor(rnd() * 200_000)),
        currency,
        period: pick(periods),
        interval: 1 + Math.floor(rnd() * 3),
        anchorDate: rnd() < 0.2 ? pick(["2024-01-31", "2024-03-30", "2024-02-29"]) : anchor,
        categories: sub(categories, 0.5),
        tags: sub(tags, 0.3),
        walletIds,
        startDate: start,
        endDate: rnd() < 0.3 ? plusDays(start, 30 + Math.floor(rnd() * 300)) : null,
        rollover: rnd() < 0.5 ? "carry_unspent" : "none",
        alertThreshold: 50 + Math.floor(rnd() * 60),
        notes: null,
        createdAt: at,
        updatedAt: at,
      };
      await insertBudget(server.db, b);
      budgets.push(b);
    }
    budgets = await listBudgetRecords(server.db, user.id);
  });
  after(async () => server?.close());

  it("gives every budget on many days exactly the per-budget query's status, in one call of more than one statement's worth", async () => {
    const requests: { budget: BudgetRecord; asOf: string }[] = [];
    for (const b of budgets) {
      for (let k = 0; k < 8; k++) {
        const asOf = day(Math.floor(rnd() * DAYS));
        if (budgetActiveOn(b, asOf)) requests.push({ budget: b, asOf });
      }
    }
    expect(requests.length).to.be.greaterThan(100); // more than REQUESTS_PER_STATEMENT: two statements
    const batched = await computeBudgetStatuses(server.db, user.id, requests);
    const expected = [];
    for (const r of requests) expected.push(await referenceStatus(server.db, r.budget, r.asOf));
    expect(batched).to.deep.equal(expected);

    // The data set exercises what it claims to: carries, overspending, sums past 2^53, every unit.
    expect(expected.some((s) => s.carried_in.minor > 0)).to.equal(true);
    expect(expected.some((s) => s.over_budget)).to.equal(true);
    expect(expected.some((s) => BigInt(s.spent.minor) > 2n ** 53n)).to.equal(true);
    expect(expected.filter((s) => s.transaction_count > 0).length).to.be.greaterThan(requests.length / 3);
    expect(new Set(requests.map((r) => r.budget.period)).size).to.equal(4);
  });

  it("gives the same answer for all budgets on one day as for each alone (get_budget_status without budget_id)", async () => {
    for (const asOf of ["2025-03-31", "2025-12-31", "2026-03-16", day(DAYS - 1)]) {
      const active = budgets.filter((b) => budgetActiveOn(b, asOf));
      const batched = await computeBudgetStatuses(server.db, user.id, active.map((b) => ({ budget: b, asOf })));
      const alone = [];
      for (const b of active) alone.push(await referenceStatus(server.db, b, asOf));
      expect(batched).to.deep.equal(alone);
      const answer = await server.call("get_budget_status", { as_of: asOf }, user.token);
      expect(answer.budgets).to.deep.equal(alone);
    }
  });

  it("names the same budgets pushed over their limit as the per-budget check, for expenses of every kind", async () => {
    let warned = 0;
    for (let i = 0; i < 60; i++) {
      const eurTxn = rnd() < 0.25;
      const e: RecordedExpense = {
        date: day(Math.floor(rnd() * DAYS)),
        currency: eurTxn ? "EUR" : "USD",
        amountMinor: rnd() < 0.1 ? BIG : BigInt(1 + Math.floor(rnd() * 400_000)),
        walletId: eurTxn ? eur : pick(usd),
        category: rnd() < 0.15 ? null : pick(categories),
        tags: rnd() < 0.5 ? [] : [foldKey(pick(tags))],
      };
      const expected = await referenceOverLimit(server.db, user.id, e);
      expect(await budgetsPushedOverLimit(server.db, user.id, e)).to.deep.equal(expected);
      warned += expected.length;
    }
    expect(warned).to.be.greaterThan(0);
  });

  it("runs no spending statement when the expense is in no budget's scope", async () => {
    const sql: string[] = [];
    const listener = (q: { sql: string }) => sql.push(q.sql);
    server.db.on("query", listener);
    try {
      const warnings = await budgetsPushedOverLimit(server.db, user.id, { date: "2026-03-01", currency: "JPY", amountMinor: 5n, walletId: usd[0] as string, category: null, tags: [] });
      expect(warnings).to.deep.equal([]);
    } finally {
      server.db.removeListener("query", listener);
    }
    expect(sql.filter((s) => /transactions|expense_day_totals/i.test(s))).to.deep.equal([]);
    expect(sql).to.have.length(1); // the budget list
  });

  it("reads all budgets' spending in one statement", async () => {
    const asOf = "2026-03-16";
    const active = budgets.filter((b) => budgetActiveOn(b, asOf));
    expect(active.length).to.be.greaterThan(3);
    const sql: string[] = [];
    const listener = (q: { sql: string }) => sql.push(q.sql);
    server.db.on("query", listener);
    try {
      await computeBudgetStatuses(server.db, user.id, active.map((b) => ({ budget: b, asOf })));
    } finally {
      server.db.removeListener("query", listener);
    }
    expect(sql).to.have.length(1);
  });
});
