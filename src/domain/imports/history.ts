/**
 * The category a payee usually gets: for each payee, the category the person gave most of their
 * transactions with that payee (ties: the most recent use). Used for imported rows no rule files.
 */
import type { Knex } from "knex";
import { fromWithIndex } from "../../db/dialect.js";
import { foldKey } from "../shared/text.js";

export async function usualCategories(db: Knex, userId: string, payees: Iterable<string>): Promise<Map<string, string>> {
  const keys = [...new Set([...payees].map(foldKey))];
  const out = new Map<string, string>();
  const best = new Map<string, { n: number; last: string }>();
  for (let i = 0; i < keys.length; i += 500) {
    // By payee (the partial index transactions_user_payee_key_filed): the person's other payees are never
    // read (issue 41).
    const rows = await fromWithIndex(db, "transactions", "transactions_user_payee_key_filed")
      .where({ user_id: userId })
      .whereIn("payee_key", keys.slice(i, i + 500))
      .whereNotNull("category")
      .whereNull("transfer_id")
      .groupBy("payee_key", "category")
      .select("payee_key", "category", db.raw("count(*) as n"), db.raw("max(date) as last"));
    for (const r of rows) {
      const key = String(r.payee_key);
      const n = Number(r.n);
      const last = String(r.last);
      const seen = best.get(key);
      if (!seen || n > seen.n || (n === seen.n && last > seen.last)) {
        best.set(key, { n, last });
        out.set(key, String(r.category));
      }
    }
  }
  return out;
}
