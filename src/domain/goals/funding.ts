/**
 * Where a goal's money moves when add_goal_funds names from_wallet_id. Saving towards a goal is not
 * spending: a goal kept in another wallet (goals.wallet_id) receives the money as a transfer from
 * from_wallet_id (both legs, like create_transaction's transfers), and a withdrawal sends it back the
 * same way, so neither ever counts in summaries or budgets. A goal with no wallet, or funded from its own
 * wallet, records the contribution only: no money moves between wallets the ledger knows.
 */
import type { Knex } from "knex";
import type { Transaction, Warning } from "../../../generated/types.js";
import type { IdSource } from "../../db/ids.js";
import { invalidParams } from "../../errors.js";
import { insertTransaction } from "../transactions/store.js";
import { getWalletRow } from "../wallets/store.js";
import type { GoalRecord } from "./store.js";

export interface GoalMoney {
  /** Signed minor units in the goal's currency: positive saves, negative withdraws. */
  amount: bigint;
  fromWalletId: string | undefined;
  date: string;
  note: string | null;
  now: Date;
  ids: IdSource;
}

/** The transfer's leg in from_wallet_id, or undefined when no money moves between wallets. */
export async function recordGoalMoney(
  db: Knex,
  userId: string,
  goal: GoalRecord,
  m: GoalMoney,
): Promise<{ transaction: Transaction; warnings: Warning[] } | undefined> {
  if (m.fromWalletId === undefined) return undefined;
  const from = await getWalletRow(db, userId, m.fromWalletId, "from_wallet_id");
  if (from.currency !== goal.currency) {
    throw invalidParams(
      "from_wallet_id",
      `a wallet in ${goal.currency}`,
      `from_wallet_id: the wallet ${JSON.stringify(from.name)} holds ${from.currency}, but goal ${JSON.stringify(goal.name)} saves in ${goal.currency}. Choose a wallet in ${goal.currency}.`,
    );
  }
  if (goal.walletId === null || goal.walletId === from.id) return undefined;

  const saving = m.amount > 0n;
  const inserted = await insertTransaction(db, userId, {
    walletId: saving ? from.id : goal.walletId,
    walletField: saving ? "from_wallet_id" : "goal_id",
    wallet: saving ? from : undefined,
    toWalletId: saving ? goal.walletId : from.id,
    date: m.date,
    amountMinor: saving ? m.amount : -m.amount,
    direction: "transfer",
    currency: goal.currency,
    description: `${saving ? "Goal contribution" : "Goal withdrawal"}: ${goal.name}`,
    notes: m.note,
    now: m.now,
    ids: m.ids,
  });
  const leg = saving ? inserted.transaction : inserted.counterpart!;
  return { transaction: leg, warnings: inserted.warnings };
}
