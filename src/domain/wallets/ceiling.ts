/**
 * The running-total bound (info.x-limits.running_total_below; src/money/ceilings.ts): after a write
 * that moves money in or out of wallets, and before it commits, each wallet's balance and each of its
 * monthly totals must stay below the bound in magnitude, or the write is refused with `conflict` naming
 * the argument and rolled back whole. One statement over wallet_month_totals for all wallets involved.
 *
 * Why after the statement and not before: the write's own statement cannot overflow (every total is below
 * 10^18 minor units and one amount below 10^16, far from BIGINT's 9.22 x 10^18), and reading the totals
 * it produced covers every path the same way: both legs of a transfer, a move between wallets or
 * months, a changed opening balance. The SQLite guard triggers (migration 20261124020000) and Postgres's
 * own BIGINT overflow check remain as the last line, translated by src/db/errors.ts.
 */
import type { Knex } from "knex";
import { conflict } from "../../errors.js";
import { formatMinor, toMinorBigInt, type MinorLike } from "../../money/amount.js";
import { runningTotalLimitMinor } from "../../money/ceilings.js";

export interface CeilingWallet {
  id: string;
  currency: string;
  opening_balance_minor: bigint;
}

const abs = (v: bigint) => (v < 0n ? -v : v);

export async function assertRunningTotals(db: Knex, userId: string, wallets: readonly CeilingWallet[], field: string): Promise<void> {
  if (wallets.length === 0) return;
  const rows: { wallet_id: string; total: MinorLike | null; hi: MinorLike | null; lo: MinorLike | null }[] = await db("wallet_month_totals")
    .select("wallet_id")
    .sum({ total: "total_minor" })
    .max({ hi: "total_minor" })
    .min({ lo: "total_minor" })
    .where("user_id", userId)
    .whereIn("wallet_id", [...new Set(wallets.map((w) => w.id))])
    .groupBy("wallet_id");
  const byId = new Map(rows.map((r) => [String(r.wallet_id), r]));
  for (const w of wallets) {
    const r = byId.get(w.id);
    const limit = runningTotalLimitMinor(w.currency);
    const balance = w.opening_balance_minor + toMinorBigInt(r?.total ?? 0n);
    const month = r ? [toMinorBigInt(r.hi ?? 0n), toMinorBigInt(r.lo ?? 0n)].reduce((a, b) => (abs(a) > abs(b) ? a : b)) : 0n;
    const worst = abs(balance) >= limit ? "balance" : abs(month) >= limit ? "monthly total" : undefined;
    if (worst) {
      throw conflict(
        field,
        `${field}: this change would take the ${worst} of wallet ${w.id} to ${formatMinor(worst === "balance" ? balance : month, w.currency)} ${w.currency}; a wallet's balance and monthly totals must stay below ${formatMinor(limit, w.currency)} ${w.currency}. Nothing was changed.`,
      );
    }
  }
}

/** The same check for wallets known by id only (a delete or an update that did not read them). */
export async function assertRunningTotalsOf(db: Knex, userId: string, walletIds: readonly string[], field: string): Promise<void> {
  if (walletIds.length === 0) return;
  const rows: { id: string; currency: string; opening_balance_minor: MinorLike }[] = await db("wallets")
    .select("id", "currency", "opening_balance_minor")
    .where("user_id", userId)
    .whereIn("id", [...new Set(walletIds)]);
  await assertRunningTotals(
    db,
    userId,
    rows.map((r) => ({ id: String(r.id), currency: String(r.currency), opening_balance_minor: toMinorBigInt(r.opening_balance_minor) })),
    field,
  );
}
