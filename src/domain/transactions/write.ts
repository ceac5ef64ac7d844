/**
 * create_transaction's rules: the amount read in the wallet's currency, today by default (the caller's
 * day), the person's categorisation rule when no category is given, and after the insert, in the same transaction, the budgets this expense pushed over their limit.
 * Updates are update.ts; deletes are store.ts's deleteTransaction. Both lock the legs first.
 */
import type { CreateTransactionParams, Transaction, Warning } from "../../../generated/types.js";
import type { DomainContext } from "../../context.js";
import { todayInTimeZone } from "../../calendar/time-zones.js";
import { budgetsPushedOverLimit } from "../budgets/over-limit.js";
import { parseAmountParam } from "../shared/amounts.js";
import { getWalletRow } from "../wallets/store.js";
import { insertTransaction } from "./store.js";
import { normalizeTags } from "../shared/text.js";

/** What a new transaction looks like to a filing rule, and what the rule sets (src/domain/rules/file-new.ts). */
export interface NewTransactionDraft {
  walletId: string;
  currency: string;
  direction: CreateTransactionParams["direction"];
  amountMinor: bigint;
  payee: string | null;
  description: string | null;
}
export type FileNewTransaction = (draft: NewTransactionDraft) => Promise<{ category: string | null; tags: string[]; payee: string | null } | undefined>;

/**
 * `fileNew` files a transaction given without a category (the person's rules); it is passed in by the
 * rules, which read transactions, so that this area does not depend on them.
 */
export async function createTransaction(
  ctx: DomainContext,
  params: CreateTransactionParams,
  fileNew?: FileNewTransaction,
): Promise<{ transaction: Transaction; counterpart: Transaction | null; warnings: Warning[] }> {
  const userId = ctx.caller.userId;
  // The wallet first: its currency decides how many decimals the amount may have.
  const wallet = await getWalletRow(ctx.db, userId, params.wallet_id, "wallet_id");
  const amountMinor = parseAmountParam(params.amount, wallet.currency, "amount");
  // Without a category, the person's first matching rule files it (docs/import.md, "Rules").
  const rule =
    params.category === undefined && fileNew
      ? await fileNew({
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
        amountMinor,
        walletId: transaction.wallet_id,
        category: transaction.category,
        tags: transaction.tags,
      })),
    );
  }
  return { transaction, counterpart, warnings };
}
