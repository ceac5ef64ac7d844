/**
 * Goal funding is a move of money, not spending (issue 13). add_goal_funds with from_wallet_id used to
 * record an expense (an income for a withdrawal) on that wallet; it now records a transfer to the goal's
 * wallet, or nothing when the goal has no wallet or is kept in that same wallet (src/domain/goals/funding.ts).
 * This migration rewrites contributions recorded the old way into the new form:
 *   - goal kept in another wallet of the same currency: the transaction becomes the from-wallet leg of a
 *     transfer (same id, amount and date) and the goal wallet's leg is added (tags copied);
 *   - goal with no wallet, or kept in the wallet the money came from: the transaction is deleted and the
 *     contribution keeps from_wallet_id, amount, date and note (no money moved between known wallets, so
 *     the wallet's balance no longer pays for it; docs/decisions.md).
 * Only transactions linked from a contribution and still single-legged are touched, so running it twice
 * changes nothing. The running totals (wallet_month_totals, expense_day_totals) follow by their triggers.
 */
import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** The same form as src/db/ids.ts (a migration cannot import the application's sources). */
function newId(prefix) {
  let n = BigInt(`0x${randomBytes(16).toString("hex")}`);
  let out = "";
  while (out.length < 22) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return `${prefix}_${out}`;
}

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  const linked = await knex("goal_contributions as c")
    .join("transactions as t", "t.id", "c.transaction_id")
    .join("goals as g", "g.id", "c.goal_id")
    .leftJoin("wallets as gw", "gw.id", "g.wallet_id")
    .whereNull("t.transfer_id")
    .whereIn("t.direction", ["expense", "income"])
    .select(
      "c.id as contribution_id",
      "t.id as transaction_id",
      "t.wallet_id as from_wallet",
      "t.currency as currency",
      "g.wallet_id as goal_wallet",
      "gw.currency as goal_wallet_currency",
    );
  for (const row of linked) {
    if (row.goal_wallet !== null && row.goal_wallet !== row.from_wallet && row.goal_wallet_currency === row.currency) {
      const leg = await knex("transactions").where({ id: row.transaction_id }).first();
      const transferId = newId("trf");
      await knex("transactions").where({ id: leg.id }).update({ direction: "transfer", transfer_id: transferId, counterpart_wallet_id: row.goal_wallet });
      const other = {
        ...leg,
        id: newId("txn"),
        wallet_id: row.goal_wallet,
        amount_minor: -BigInt(leg.amount_minor),
        direction: "transfer",
        transfer_id: transferId,
        counterpart_wallet_id: leg.wallet_id,
        external_id: null,
      };
      delete other.tags_key; // follows the tag rows (trigger of 202611220101)
      await knex("transactions").insert({ ...other, amount_minor: String(other.amount_minor) });
      const tags = await knex("transaction_tags").where({ transaction_id: leg.id }).select("user_id", "tag");
      if (tags.length) await knex("transaction_tags").insert(tags.map((t) => ({ ...t, transaction_id: other.id })));
    } else if (row.goal_wallet === null || row.goal_wallet === row.from_wallet) {
      await knex("goal_contributions").where({ id: row.contribution_id }).update({ transaction_id: null });
      await knex("transaction_tags").where({ transaction_id: row.transaction_id }).delete();
      await knex("transactions").where({ id: row.transaction_id }).delete();
    }
    // A goal wallet in another currency cannot receive a transfer: such a row (which the tools never
    // wrote) keeps its old form.
  }
}

/** @param {import('knex').Knex} knex */
export async function down() {
  // Nothing to undo for the schema: the rewritten rows are valid in the old form's ledger too (transfers
  // and contributions without a transaction), so the ledger stays writable by the previous version.
}
