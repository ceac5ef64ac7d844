import type { Handlers } from "../../../generated/handlers.js";
import { walletReferences } from "../../domain/wallets/references.js";
import { findWallet, getWalletRow } from "../../domain/wallets/store.js";
import { AppError } from "../../errors.js";

export const delete_wallet: Handlers["delete_wallet"] = async (params, ctx) => {
  const userId = ctx.caller.userId;
  const row = await getWalletRow(ctx.db, userId, params.wallet_id, "wallet_id");

  const counted = await ctx.db("transactions").where({ user_id: userId, wallet_id: row.id }).count({ n: "*" }).first();
  const transactionCount = Number(counted?.n ?? 0);
  if (transactionCount > 0) {
    throw new AppError(
      "wallet_not_empty",
      `wallet_id: the wallet ${JSON.stringify(row.name)} has ${transactionCount} transaction${transactionCount === 1 ? "" : "s"}, so deleting it would lose money history. Offer to archive it instead with update_wallet (archived: true); it then disappears from default lists and totals and keeps its history.`,
      { field: "wallet_id", expected: "a wallet without transactions; archive this one with update_wallet (archived: true)", transaction_count: transactionCount },
    );
  }
  const refs = await walletReferences(ctx.db, userId, row.id);
  if (refs.length > 0) {
    throw new AppError(
      "conflict",
      `wallet_id: the wallet ${JSON.stringify(row.name)} is still used by ${refs.map((r) => `${r.kind} ${JSON.stringify(r.name)} (${r.id})`).join(", ")}. Change or delete those first, or archive the wallet with update_wallet (archived: true).`,
      { field: "wallet_id", existing_id: refs[0]!.id, reason: `referenced_by_${refs[0]!.kind}` },
    );
  }

  const wallet = (await findWallet(ctx.db, userId, row.id))!;
  await ctx.db("wallets").where({ user_id: userId, id: row.id }).delete();
  return {
    result: { wallet, warnings: [] },
    change: { action: "delete", resourceType: "wallet", resourceId: row.id, before: wallet, after: null },
  };
};
