/**
 * What recurring detection reads: each payee's latest charges, through the index
 * transactions_user_payee_date (user_id, lower(payee), date) (migration 20261125080100):
 *   1. the user's distinct payee keys, by a recursive walk that jumps from one key to the next (one
 *      index seek per payee, not a scan of the user's rows);
 *   2. the newest LATEST_PER_PAYEE rows of each key, a few dozen keys per statement (the top of each
 *      key's index range).
 * So the cost grows with the number of payees, not with the length of the history.
 */
import type { Knex } from "knex";
import { toMinorBigInt, type MinorLike } from "../../money/amount.js";

/** Enough to judge twelve intervals; older charges say nothing more about whether one still recurs. */
export const LATEST_PER_PAYEE = 13;
/** A person with more payees than this has the most-recently-named ones ignored beyond it (keys in order). */
export const MAX_PAYEE_KEYS = 5000;
const KEYS_PER_STATEMENT = 40;

export interface Charge {
  payee: string;
  date: string;
  amountMinor: bigint;
  currency: string;
  direction: string;
  walletId: string;
}

/**
 * The user's distinct lower(payee) keys in index order, one seek each (bindings: user, user, MAX_PAYEE_KEYS).
 * ORDER BY … LIMIT 1 rather than min(): both engines then read the first index entry past the key, where
 * Postgres may plan a min() as an aggregate over the user's whole range.
 */
export const PAYEE_KEYS_SQL = `WITH RECURSIVE keys(k, n) AS (
    SELECT (SELECT lower(payee) FROM transactions WHERE user_id = ? AND lower(payee) IS NOT NULL ORDER BY lower(payee) LIMIT 1), 1
    UNION ALL
    SELECT (SELECT lower(payee) FROM transactions WHERE user_id = ? AND lower(payee) > keys.k ORDER BY lower(payee) LIMIT 1), n + 1
      FROM keys WHERE keys.k IS NOT NULL AND n < ?
  )
  SELECT k FROM keys WHERE k IS NOT NULL`;

/** The newest rows of `keys` payees, each the top of its index range (bindings: user and key, per key). */
export function latestChargesSql(keys: number): string {
  const one = `SELECT * FROM (SELECT payee, date, amount_minor, currency, direction, wallet_id FROM transactions
                WHERE user_id = ? AND lower(payee) = ? ORDER BY date DESC LIMIT ${LATEST_PER_PAYEE}) AS p`;
  return Array.from({ length: keys }, () => one).join(" UNION ALL ");
}

async function payeeKeys(db: Knex, userId: string): Promise<string[]> {
  const rows: { k: string | null }[] = await db
    .raw(PAYEE_KEYS_SQL, [userId, userId, MAX_PAYEE_KEYS])
    .then((r: unknown) => (Array.isArray(r) ? r : (r as { rows: { k: string | null }[] }).rows));
  return rows.map((r) => String(r.k));
}

/** The newest LATEST_PER_PAYEE expenses and incomes of every payee of the user (transfers are not charges). */
export async function latestChargesByPayee(db: Knex, userId: string): Promise<Charge[]> {
  const keys = await payeeKeys(db, userId);
  const out: Charge[] = [];
  for (let i = 0; i < keys.length; i += KEYS_PER_STATEMENT) {
    const batch = keys.slice(i, i + KEYS_PER_STATEMENT);
    const result: unknown = await db.raw(
      latestChargesSql(batch.length),
      batch.flatMap((k) => [userId, k]),
    );
    const rows = (Array.isArray(result) ? result : (result as { rows: Record<string, unknown>[] }).rows) as Record<string, unknown>[];
    for (const r of rows) {
      if (r.direction !== "expense" && r.direction !== "income") continue;
      out.push({
        payee: String(r.payee),
        date: String(r.date),
        amountMinor: toMinorBigInt(r.amount_minor as MinorLike),
        currency: String(r.currency),
        direction: String(r.direction),
        walletId: String(r.wallet_id),
      });
    }
  }
  return out;
}
