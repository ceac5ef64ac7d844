/**
 * What still refers to a wallet besides its transactions: goals (goals.wallet_id), bill reminders
 * (bill_reminders.wallet_id) and budgets (budgets.wallet_ids, a JSON list). delete_wallet refuses while
 * any exists. Read-only over those tables; they belong to the goals, bills and budgets code.
 */
import type { Knex } from "knex";

export interface WalletReference {
  kind: "goal" | "bill_reminder" | "budget";
  id: string;
  name: string;
}

export async function walletReferences(db: Knex, userId: string, walletId: string): Promise<WalletReference[]> {
  const refs: WalletReference[] = [];
  for (const g of await db("goals").where({ user_id: userId, wallet_id: walletId }).select("id", "name").orderBy("id")) {
    refs.push({ kind: "goal", id: String(g.id), name: String(g.name) });
  }
  for (const b of await db("bill_reminders").where({ user_id: userId, wallet_id: walletId }).select("id", "name").orderBy("id")) {
    refs.push({ kind: "bill_reminder", id: String(b.id), name: String(b.name) });
  }
  // A user has few budgets: read their wallet lists and look in JavaScript (no LIKE over JSON text).
  for (const b of await db("budgets").where({ user_id: userId }).select("id", "name", "wallet_ids").orderBy("id")) {
    let ids: unknown;
    try {
      ids = JSON.parse(String(b.wallet_ids ?? "[]"));
    } catch {
      ids = [];
    }
    if (Array.isArray(ids) && ids.includes(walletId)) refs.push({ kind: "budget", id: String(b.id), name: String(b.name) });
  }
  return refs;
}
