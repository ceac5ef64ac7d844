/**
 * The wallet writes: create, update and delete, with their rules (a name unique per user, the currency
 * fixed, the opening balance within the running-total bounds, no delete of a wallet with transactions or
 * one a budget, goal or bill uses). Each returns the wallet as the tools answer it, before and after.
 */
import type { DomainContext } from "../../context.js";
import { todayOf } from "../../calendar/time-zones.js";
import type { Wallet } from "../../../generated/types.js";
import { AppError } from "../../errors.js";
import { parseAmountParam, requireKnownCurrency } from "../shared/amounts.js";
import { assertRunningTotals } from "./ceiling.js";
import { bindShownRecord, lockRow } from "../shared/common.js";
import { isUniqueViolation } from "../../db/errors.js";
import { assertNameFree, normalizeWalletName } from "./names.js";
import { walletReferences } from "./references.js";
import { findWallet, findWalletRow, getWalletRow, walletFromRow } from "./store.js";
import { checkNamedCurrency } from "./currency.js";
/** The caller's today, for the handlers that pass it in (one import per handler: src/domain/README.md). */

export interface NewWallet {
  name: string;
  type: string;
  currency: string;
  opening_balance?: string;
  opening_date?: string;
  notes?: string;
}

const nameTaken = (name: string) =>
  new AppError("conflict", `name: the user already has a wallet named ${JSON.stringify(name)}. Choose another name.`, { field: "name" });

export async function createWallet(ctx: DomainContext, input: NewWallet): Promise<Wallet> {
  const { db } = ctx;
  const { userId } = ctx.caller;
  const clock = { now: ctx.now(), ids: ctx.ids };
  requireKnownCurrency(input.currency, "currency");
  const opening =
    input.opening_balance === undefined ? 0n : parseAmountParam(input.opening_balance, input.currency, "opening_balance", { signed: true, allowZero: true });
  const { name, key } = normalizeWalletName(input.name);
  await assertNameFree(db, userId, key);
  const id = clock.ids.next("wal");
  const at = clock.now.toISOString();
  try {
    await db("wallets").insert({
      id,
      user_id: userId,
      name,
      name_normalized: key,
      type: input.type,
      currency: input.currency,
      opening_balance_minor: opening,
      opening_date: input.opening_date ?? null,
      archived: false,
      notes: input.notes ?? null,
      created_at: at,
      updated_at: at,
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw nameTaken(name);
    throw err;
  }
  const row = (await findWalletRow(db, userId, id))!;
  return walletFromRow(row, row.opening_balance_minor);
}

export interface WalletChange {
  name?: string;
  type?: string;
  opening_balance?: string;
  opening_date?: string | null;
  archived?: boolean;
  in_net_worth?: boolean;
  notes?: string | null;
  /** The currency the person named for opening_balance: refused unless the wallet's (checkNamedCurrency). */
  currency?: string;
}

/**
 * Only the fields given change. `checkSomeChange` runs once the wallet is found: an unknown wallet is
 * not_found before "nothing to change", as the other update tools answer. `today` is the user's day: the
 * answer's balances are as of it (findWallet).
 */
export async function updateWallet(
  ctx: DomainContext,
  change: WalletChange & { wallet_id: string },
  checkSomeChange: () => void = () => {},
): Promise<{ before: Wallet; after: Wallet }> {
  const { db } = ctx;
  const { userId } = ctx.caller;
  const walletId = change.wallet_id;
  const now = ctx.now();
  const today = todayOf(ctx);
  await lockRow(db, "wallets", userId, walletId);
  const row = await getWalletRow(db, userId, walletId, "wallet_id");
  checkSomeChange();
  await checkNamedCurrency(db, userId, change.currency, row.currency, `the wallet ${JSON.stringify(row.name)}`);
  const before = (await findWallet(db, userId, row.id, today))!;
  const patch: Record<string, unknown> = {};
  if (change.name !== undefined) {
    const { name, key } = normalizeWalletName(change.name);
    await assertNameFree(db, userId, key, row.id);
    patch.name = name;
    patch.name_normalized = key;
  }
  if (change.type !== undefined) patch.type = change.type;
  if (change.opening_balance !== undefined) {
    patch.opening_balance_minor = parseAmountParam(change.opening_balance, row.currency, "opening_balance", { signed: true, allowZero: true });
  }
  if (change.opening_date !== undefined) patch.opening_date = change.opening_date;
  if (change.archived !== undefined) patch.archived = change.archived;
  if (change.in_net_worth !== undefined) patch.in_net_worth = change.in_net_worth;
  if (change.notes !== undefined) patch.notes = change.notes;
  patch.updated_at = now.toISOString();

  try {
    await db("wallets").where({ user_id: userId, id: row.id }).update(patch);
  } catch (err) {
    if (isUniqueViolation(err))
      throw new AppError("conflict", "name: another of the user's wallets already has this name. Choose another name.", { field: "name" });
    throw err;
  }
  if (patch.opening_balance_minor !== undefined) {
    await assertRunningTotals(db, userId, [{ ...row, opening_balance_minor: patch.opening_balance_minor as bigint }], "opening_balance");
  }
  return { before, after: (await findWallet(db, userId, row.id, today))! };
}

/** Deletes a wallet that has no transactions and that nothing uses; answers the wallet that went. */
export async function deleteWallet(ctx: DomainContext, p: { wallet_id: string }): Promise<Wallet> {
  const { db } = ctx;
  const { userId } = ctx.caller;
  const walletId = p.wallet_id;
  const today = todayOf(ctx);
  // Locked before the checks: a transaction, budget, goal or bill written at the same moment for this
  // wallet then waits for this delete instead of slipping in between the checks and the delete, and a
  // delete or update of the same wallet by another call is answered after it (then not_found here).
  await lockRow(db, "wallets", userId, walletId);
  const row = await getWalletRow(db, userId, walletId, "wallet_id");
  const counted = await db("transactions").where({ user_id: userId, wallet_id: row.id }).count({ n: "*" }).first();
  const transactionCount = Number(counted?.n ?? 0);
  if (transactionCount > 0) {
    throw new AppError(
      "wallet_not_empty",
      `wallet_id: the wallet ${JSON.stringify(row.name)} has ${transactionCount} transaction${transactionCount === 1 ? "" : "s"}, so deleting it would lose money history. Offer to archive it instead with update_wallet (archived: true); it then disappears from default lists and totals and keeps its history.`,
      {
        field: "wallet_id",
        expected: "a wallet without transactions; archive this one with update_wallet (archived: true)",
        transaction_count: transactionCount,
      },
    );
  }
  const refs = await walletReferences(db, userId, row.id);
  if (refs.length > 0) {
    throw new AppError(
      "conflict",
      `wallet_id: the wallet ${JSON.stringify(row.name)} is still used by ${refs.map((r) => `${r.kind} ${JSON.stringify(r.name)} (${r.id})`).join(", ")}. Change or delete those first, or archive the wallet with update_wallet (archived: true).`,
      { field: "wallet_id", existing_id: refs[0]!.id, reason: `referenced_by_${refs[0]!.kind}` },
    );
  }
  const wallet = (await findWallet(db, userId, row.id, today))!;
  bindShownRecord(ctx, "wallet", wallet.id, wallet, wallet.updated_at);
  // The CSV mappings remembered for the wallet (src/domain/imports/mappings.ts) go first, by name rather
  // than by the foreign key's cascade: the audit captures them before the wallet, so an undo of the delete
  // puts the wallet back before them.
  await db("import_mappings").where({ user_id: userId, wallet_id: row.id }).delete();
  // A bank connection syncing into the wallet goes with it, its sealed credential included: a person
  // deleting the wallet stops that bank's access here (docs/history/bank-connections.md). Not captured: an undo of the
  // delete brings the wallet back, never the credential.
  const linked = (await db("bank_accounts").where({ user_id: userId, wallet_id: row.id }).select("connection_id")).map((r) => String(r.connection_id));
  if (linked.length > 0) {
    await db("bank_accounts").where({ user_id: userId }).whereIn("connection_id", linked).delete();
    await db("bank_connections").where({ user_id: userId }).whereIn("id", linked).delete();
  }
  await db("wallets").where({ user_id: userId, id: row.id }).delete();
  return wallet;
}
