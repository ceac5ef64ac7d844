/**
 * What a cash-flow forecast reads: each counted wallet's balance at the end of today with the home
 * currency and the rates (readNetWorthInputs, one statement), the wallets' names, the future-dated
 * rows up to the horizon (transactionsQuery over the (user, date) range: only the days
 * ahead are read), and the regular payments with their reminders (recurringInputs, one row per payee).
 * Every read is bounded by the horizon or by the number of payees and wallets, never by the history.
 */
import type { Knex } from "knex";
import { plusDays } from "../../calendar/days.js";
import { readNetWorthInputs } from "../networth/ledger.js";
import type { ExchangeRate } from "../networth/rates.js";
import { recurringInputs, type CoveringBill } from "../recurring/store.js";
import { regularPayments, type Series } from "../recurring/series.js";
import { transactionsQuery } from "../transactions/query.js";
import { openingOn } from "../wallets/store.js";

export interface ForecastWallet {
  id: string;
  name: string;
  currency: string;
  balanceMinor: bigint;
}

export interface DatedRow {
  date: string;
  walletId: string;
  payee: string | null;
  /** Signed: an expense is negative. */
  amountMinor: bigint;
  currency: string;
  direction: string;
}

export interface ForecastInputs {
  home: string;
  rates: ExchangeRate[];
  wallets: ForecastWallet[];
  rows: DatedRow[];
  series: Series[];
  bills: CoveringBill[];
}

/** The inputs of a forecast from `today` through `last`. */
export async function readForecastInputs(db: Knex, userId: string, today: string, last: string): Promise<ForecastInputs> {
  const [worth, names, rows, recurring] = await Promise.all([
    readNetWorthInputs(db, userId, [today]),
    db("wallets").where({ user_id: userId }).select("id", "name"),
    // Every row, transfers too: each leg is a signed row of its own wallet.
    transactionsQuery(db, { userId, dateFrom: plusDays(today, 1), dateTo: last })
      .orderBy([{ column: "t.date" }, { column: "t.id" }])
      .select("t.date", "t.wallet_id", "t.payee", "t.amount_minor", "t.currency", "t.direction"),
    recurringInputs(db, userId),
  ]);
  const nameOf = new Map((names as { id: string; name: string }[]).map((w) => [String(w.id), String(w.name)]));
  return {
    home: worth.home,
    rates: worth.rates,
    // By name (then id), as the person reads them; the daily series follow this order.
    wallets: worth.wallets
      .map((w) => ({
        id: w.id,
        name: nameOf.get(w.id) ?? w.id,
        currency: w.currency,
        balanceMinor: openingOn(w, today) + (worth.sums[0]!.get(w.id) ?? 0n),
      }))
      .sort((a, b) => a.name.localeCompare(b.name) || (a.id < b.id ? -1 : 1)),
    rows: (rows as Record<string, unknown>[]).map((r) => ({
      date: String(r.date),
      walletId: String(r.wallet_id),
      payee: r.payee === null || r.payee === undefined ? null : String(r.payee),
      amountMinor: BigInt(String(r.amount_minor)),
      currency: String(r.currency),
      direction: String(r.direction),
    })),
    series: regularPayments(recurring.charges, recurring.bills, today, recurring.decisions),
    bills: recurring.bills,
  };
}
