import type { Handlers } from "../../../generated/handlers.js";
import { todayInTimeZone } from "../../calendar/time-zones.js";
import { budgetsPushedOverLimit } from "../../domain/budgets/over-limit.js";
import { parseAmountParam } from "../../domain/shared/amounts.js";
import { insertTransaction } from "../../domain/transactions/store.js";
import { getWalletRow } from "../../domain/wallets/store.js";
import { ruleFor } from "../../domain/rules/apply.js";
import { normalizeTags } from "../../domain/shared/text.js";

export const create_transaction: Handlers["create_transaction"] = async (params, ctx) => {
  const userId = ctx.caller.userId;
  // The wallet first: its currency decides how many decimals the amount may have.
  const wallet = await getWalletRow(ctx.db, userId, params.wallet_id, "wallet_id");
  const amountMinor = parseAmountParam(params.amount, wallet.currency, "amount");
  // Without a category, the person's first matching rule files it (docs/import.md, "Rules").
  const rule =
    params.category === undefined
      ? await ruleFor(ctx.db, userId, {
          walletId: wallet.id,
          currency: wallet.currency,
          direction: params.direction,
          amountMinor,
          payee: params.payee ?? null,
          description: params.description ?? null,
        })
      : undefined;
  const inserted = await insertTransaction(ctx.db, userId, {
    walletId: wallet.id,
    // Already read above in this transaction: insertTransaction need not read it again.
    wallet,
    date: params.date ?? todayInTimeZone(ctx.caller.timezone, ctx.now()),
    amountMinor,
    direction: params.direction,
    toWalletId: params.to_wallet_id ?? null,
    payee: rule?.payee ?? params.payee,
    description: params.description,
    category: params.category ?? rule?.category ?? undefined,
    // A tag list holds at most 20 (TagList): the rule's tags fill up to that.
    tags: rule && rule.tags.length > 0 ? normalizeTags([...(params.tags ?? []), ...rule.tags]).slice(0, 20) : params.tags,
    notes: params.notes,
    externalId: params.external_id,
    now: ctx.now(),
    ids: ctx.ids,
  });
  const { transaction, counterpart } = inserted;
  const warnings = [...inserted.warnings];
  if (transaction.direction === "expense") {
    // After the insert, in the same transaction: the budgets this expense pushed over their limit.
    warnings.push(
      ...(await budgetsPushedOverLimit(ctx.db, userId, {
        date: transaction.date,
        currency: transaction.currency,
        amountMinor: amountMinor,
        walletId: transaction.wallet_id,
        category: transaction.category,
        tags: transaction.tags,
      })),
    );
  }
  return {
    result: { transaction, counterpart, warnings },
    change: { action: "create", resourceType: "transaction", resourceId: transaction.id, before: null, after: { transaction, counterpart } },
  };
};
