/**
 * What a cash-flow forecast reads, in two statements run side by side: each counted wallet's balance at
 * the end of today with the home currency and the rates (readNetWorthInputs), and in the other
 * (forecastInputs, list_recurring's statement with two more branches) the regular payments with their
 * reminders and the person's decisions (one row per payee), the wallets' names, and the future-dated rows
 * up to the horizon (over the (user, date) index: only the days ahead are read). Every read is bounded by
 * the horizon or by the number of payees and wallets, never by the history.
 */
import type { Knex } from "knex";
import { plusDays } from "../../calendar/days.js";
import { readNetWorthInputs } from "../networth/ledger.js";
import type { ExchangeRate } from "../networth/rates.js";
import { forecastInputs, type CoveringBill, type DatedRow } from "../recurring/store.js";
import { regularPayments, type Series } from "../recurring/series.js";
import { openingOn } from "../wallets/store.js";

export type { DatedRow };

export interface ForecastWallet {
  id: string;
  name: string;
  /** The wallet's type: a credit_card may be settled by a reminder named after it (project.ts, cardSettlements). */
  type: string;
  currency: string;
  balanceMinor: bigint;
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
  const [worth, recurring] = await Promise.all([readNetWorthInputs(db, userId, [today]), forecastInputs(db, userId, plusDays(today, 1), last)]);
  const nameOf = recurring.names;
  return {
    home: worth.home,
    rates: worth.rates,
    // By name (then id), as the person reads them; the daily series follow this order.
    wallets: worth.wallets
      .map((w) => ({
        id: w.id,
        name: nameOf.get(w.id) ?? w.id,
        type: w.type,
        currency: w.currency,
        balanceMinor: openingOn(w, today) + (worth.sums[0]!.get(w.id) ?? 0n),
      }))
      .sort((a, b) => a.name.localeCompare(b.name) || (a.id < b.id ? -1 : 1)),
    rows: recurring.rows,
    series: regularPayments(recurring.charges, recurring.bills, today, recurring.decisions),
    bills: recurring.bills,
  };
}
