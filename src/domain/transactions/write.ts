/**
 * create_transaction's rules: the amount read in the wallet's currency, today by default (the caller's
 * day), the person's categorisation rule when no category is given, and after the insert, in the same transaction, the budgets this expense pushed over their limit.
 * Updates are update.ts; deletes are delete.ts. Both lock the legs first.
 */
import type { CreateTransactionParams, Transaction, Warning } from "../../../generated/types.js";
import type { DomainContext } from "../../context.js";
import { todayOf } from "../../calendar/time-zones.js";
import { budgetsPushedOverLimit } from "../budgets/over-limit.js";
import { parseAmountParam } from "../shared/amounts.js";
import { getWalletRow } from "../wallets/store.js";
import { checkNamedCurrency } from "../wallets/currency.js";
import { findTransactionRow, insertTransaction, transactionsFromRows } from "./store.js";
import { checkRefundOf, markRefunds, planParts, tagsOfParts, writeParts } from "./parts.js";
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
  await checkNamedCurrency(ctx.db, userId, params.currency, wallet.currency, `the wallet ${JSON.stringify(wallet.name)}`);
  const amountMinor = parseAmountParam(params.amount, wallet.currency, "amount");
  // A refund's money goes back where it was spent: its category defaults to the refunded expense's.
  const refundedCategory =
    params.refund_of !== undefined ? await checkRefundOf(ctx.db, userId, params.refund_of, { direction: params.direction, currency: wallet.currency }) : null;
  const category = params.category ?? (params.parts === undefined ? refundedCategory : null) ?? undefined;
  // A split names each part's category and tags; the call's category and tags are the parts' defaults
  // (docs/ledger.md, "Split transactions"), and the row itself has no category.
  const parts =
    params.parts === undefined
      ? []
      : planParts(
          params.parts,
          { amountMinor: params.direction === "income" ? amountMinor : -amountMinor, currency: wallet.currency, direction: params.direction },
          { category: category ?? null, tags: params.tags ?? [] },
        );
  // Without a category, the person's first matching rule files it (docs/import.md, "Rules"); a split was
  // filed part by part by the person.
  const rule =
    category === undefined && parts.length === 0 && fileNew
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
    date: params.date ?? todayOf(ctx),
    amountMinor,
    direction: params.direction,
    toWalletId: params.to_wallet_id ?? null,
    payee: rule?.payee ?? params.payee,
    description: params.description,
    category: parts.length > 0 ? null : (category ?? rule?.category ?? undefined),
    // A tag list holds at most 20 (TagList): the rule's tags fill up to that. A split row's tags are its parts'.
    tags:
      parts.length > 0 ? tagsOfParts(parts) : rule && rule.tags.length > 0 ? normalizeTags([...(params.tags ?? []), ...rule.tags]).slice(0, 20) : params.tags,
    notes: params.notes,
    externalId: params.external_id,
    refundOf: params.refund_of ?? null,
    now: ctx.now(),
    ids: ctx.ids,
  });
  const { counterpart } = inserted;
  let transaction = inserted.transaction;
  if (parts.length > 0) await writeParts(ctx.db, userId, transaction.id, parts);
  if (transaction.direction === "income") await markRefunds(ctx.db, userId, [transaction.id]);
  if (parts.length > 0 || transaction.direction === "income") {
    // Read back: the parts and the refund flag are the stored ones.
    const row = (await findTransactionRow(ctx.db, userId, transaction.id))!;
    transaction = (await transactionsFromRows(ctx.db, [row]))[0]!;
  }
  const warnings = [...inserted.warnings];
  if (transaction.direction === "expense") {
    // After the insert, in the same transaction: the budgets this expense pushed over their limit; a
    // split one, each part in its own category and tags (a budget named twice is warned about once).
    const lines =
      parts.length > 0
        ? parts.map((p) => ({ amountMinor: -p.amountMinor, category: p.category, tags: p.tags }))
        : [{ amountMinor, category: transaction.category, tags: transaction.tags }];
    const seen = new Set<string>();
    for (const line of lines) {
      for (const w of await budgetsPushedOverLimit(ctx.db, userId, {
        date: transaction.date,
        currency: transaction.currency,
        walletId: transaction.wallet_id,
        ...line,
      })) {
        if (!seen.has(w.message)) warnings.push(w);
        seen.add(w.message);
      }
    }
  }
  return { transaction, counterpart, warnings };
}
