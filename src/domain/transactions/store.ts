/**
 * The ledger's rows: reading, mapping and recording transactions. Every query is scoped by user_id.
 *
 * ── For other resources (goals' add_goal_funds records its wallet transaction with this) ──────────────
 *
 *   insertTransaction(trx: Knex.Transaction, userId: string, input: NewTransaction): Promise<InsertedTransaction>
 *
 *     Records one expense or income (or a transfer: both legs) inside the caller's transaction, after
 *     checking everything create_transaction checks: the wallet (and to_wallet) belongs to the user
 *     (else not_found naming input.walletField / "to_wallet_id"), input.currency if given equals the
 *     wallet's currency (else invalid_params naming input.walletField), external_id is free in the wallet
 *     (else conflict naming "external_id"). Returns the contract's Transaction objects and the non-blocking
 *     warnings (possible_duplicate, wallet_archived). It writes no audit row and claims no key: the caller
 *     runs inside the write pipeline, which does that once for the whole write.
 *
 *     NewTransaction = {
 *       walletId: string;             walletField?: string   (argument named in errors; default "wallet_id")
 *       date: string;                 (YYYY-MM-DD, the user's calendar day)
 *       amountMinor: bigint;          (a positive magnitude in the wallet currency's minor units; the sign
 *                                      is derived: expense and transfer-out negative, income positive)
 *       direction: "expense" | "income" | "transfer";   toWalletId?: string (transfers only)
 *       currency?: string;            (when set, the wallet must have this currency)
 *       payee?, description?, category?, notes?, externalId?: string | null;   tags?: readonly string[]
 *       now: Date;                    (created_at / updated_at)
 *       ids?: IdSource;               (where the new rows' ids come from: ctx.ids; random by default)
 *       wallet?: WalletRow;           (walletId's row, when the caller already read it in this transaction)
 *     }
 *     InsertedTransaction = { transaction: Transaction; counterpart: Transaction | null; warnings: Warning[] }
 *
 *   findTransaction(db, userId, transactionId) → Transaction | undefined
 *   transactionsFromRows(db, rows) → Transaction[]     (rows of the transactions table, tags loaded)
 *
 * Keep these signatures stable; extend NewTransaction only with optional members.
 *
 * Storage: amount_minor is signed BIGINT minor units (outflow negative). category_key and payee_key are the
 * folded forms used for case-insensitive filters and groups; tags live in transaction_tags, folded to
 * lower case. A transfer is two rows sharing transfer_id, each pointing at the other's wallet through
 * counterpart_wallet_id; the outgoing leg (negative) is in wallet_id, the incoming leg in to_wallet_id.
 */
import type { Knex } from "knex";
import type { Direction, Part, Transaction, Warning } from "../../../generated/types.js";
import { randomIds, type IdSource } from "../../db/ids.js";
import { AppError, invalidParams } from "../../errors.js";
import { formatMinor, toMinorBigInt, toMoney, type MinorLike } from "../../money/amount.js";
import { addDays } from "../../calendar/days.js";
import { isUniqueViolation } from "../../db/errors.js";
import { forUpdate } from "../../db/dialect.js";
import { getWalletRow, type WalletRow } from "../wallets/store.js";
import { assertRunningTotals } from "../wallets/ceiling.js";
import { cleanText, foldedKeys, foldKey, normalizeTags, nullableText } from "../shared/text.js";
import { partsOf } from "./parts.js";

export interface TransactionRow {
  id: string;
  user_id: string;
  wallet_id: string;
  date: string;
  amount_minor: bigint;
  currency: string;
  direction: Direction;
  payee: string | null;
  description: string | null;
  category: string | null;
  notes: string | null;
  external_id: string | null;
  transfer_id: string | null;
  counterpart_wallet_id: string | null;
  /** The expense this income refunds (refund_of), and whether the row is a refund (parts.ts, markRefunds). */
  refund_of: string | null;
  refund: boolean;
  created_at: string;
  updated_at: string;
}

export function coerceTransactionRow(raw: Record<string, unknown>): TransactionRow {
  return {
    id: String(raw.id),
    user_id: String(raw.user_id),
    wallet_id: String(raw.wallet_id),
    date: String(raw.date),
    amount_minor: toMinorBigInt(raw.amount_minor as MinorLike),
    currency: String(raw.currency),
    direction: String(raw.direction) as Direction,
    payee: nullableText(raw.payee),
    description: nullableText(raw.description),
    category: nullableText(raw.category),
    notes: nullableText(raw.notes),
    external_id: nullableText(raw.external_id),
    transfer_id: nullableText(raw.transfer_id),
    counterpart_wallet_id: nullableText(raw.counterpart_wallet_id),
    refund_of: nullableText(raw.refund_of),
    refund: Number(raw.refund ?? 0) === 1,
    created_at: String(raw.created_at),
    updated_at: String(raw.updated_at),
  };
}

/** The contract's Transaction; `parts` only for a split row, refund and refund_of only when set. */
export function transactionFromRow(row: TransactionRow, tags: readonly string[], parts?: readonly Part[]): Transaction {
  const t: Transaction = {
    id: row.id,
    wallet_id: row.wallet_id,
    date: row.date,
    amount: toMoney(row.amount_minor, row.currency),
    direction: row.direction,
    payee: row.payee,
    // The common fields before the rare ones: a page's table (src/mcp/model-text.ts) orders its columns
    // as a record orders its fields, and a row stops at its last field, so rare ones cost least last.
    category: row.category,
    tags: [...tags],
    description: row.description,
    notes: row.notes,
    external_id: row.external_id,
    transfer_id: row.transfer_id,
    counterpart_wallet_id: row.counterpart_wallet_id,
    currency: row.currency,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
  if (parts && parts.length > 0) t.parts = [...parts];
  if (row.refund) t.refund = true;
  if (row.refund_of !== null) t.refund_of = row.refund_of;
  return t;
}

/** Tags of many transactions at once (sorted), through the (transaction_id, tag) primary key. */
export async function tagsOf(db: Knex, transactionIds: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const id of transactionIds) out.set(id, []);
  for (let i = 0; i < transactionIds.length; i += 500) {
    const chunk = transactionIds.slice(i, i + 500);
    const rows = await db("transaction_tags")
      .whereIn("transaction_id", chunk)
      .select("transaction_id", "tag")
      .orderBy([{ column: "transaction_id" }, { column: "tag" }]);
    for (const r of rows) out.get(String(r.transaction_id))?.push(String(r.tag));
  }
  for (const tags of out.values()) tags.sort();
  return out;
}

export async function transactionsFromRows(db: Knex, rows: readonly TransactionRow[]): Promise<Transaction[]> {
  const tags = await tagsOf(
    db,
    rows.map((r) => r.id),
  );
  const parts = await partsOf(db, rows);
  return rows.map((r) => transactionFromRow(r, tags.get(r.id) ?? [], parts.get(r.id)));
}

export async function findTransactionRow(db: Knex, userId: string, transactionId: string): Promise<TransactionRow | undefined> {
  const raw = await db("transactions").where({ user_id: userId, id: transactionId }).first();
  return raw ? coerceTransactionRow(raw) : undefined;
}

/** The other leg of a transfer (undefined for a plain transaction). */
export async function findCounterpartRow(db: Knex, row: TransactionRow): Promise<TransactionRow | undefined> {
  if (!row.transfer_id) return undefined;
  const raw = await db("transactions").where({ user_id: row.user_id, transfer_id: row.transfer_id }).andWhereNot("id", row.id).first();
  return raw ? coerceTransactionRow(raw) : undefined;
}

export async function findTransaction(db: Knex, userId: string, transactionId: string): Promise<Transaction | undefined> {
  const row = await findTransactionRow(db, userId, transactionId);
  if (!row) return undefined;
  return (await transactionsFromRows(db, [row]))[0];
}

/**
 * Takes the row locks of a transaction and of the other leg of its transfer for the rest of the write
 * (Postgres: FOR UPDATE; SQLite's writes are serial already), before the write reads either: a
 * concurrent delete then finishes first and this write finds the row gone (not_found). Both legs in id
 * order, whichever leg a call names, so an update of one leg and a delete of the other cannot deadlock.
 */
export async function lockTransactionLegs(db: Knex, userId: string, transactionId: string): Promise<void> {
  const transferOf = db("transactions").select("transfer_id").where({ user_id: userId, id: transactionId });
  await forUpdate(
    db,
    db("transactions")
      .select("id")
      .where("user_id", userId)
      .andWhere((q) => q.where("id", transactionId).orWhereIn("transfer_id", transferOf))
      .orderBy("id"),
  );
}

/** A transaction and its transfer counterpart, as the write tools answer them. */
export interface TransactionPair {
  transaction: Transaction;
  counterpart: Transaction | null;
}

export async function loadPair(db: Knex, row: TransactionRow): Promise<TransactionPair> {
  const other = await findCounterpartRow(db, row);
  const [transaction, counterpart] = await transactionsFromRows(db, other ? [row, other] : [row]);
  return { transaction: transaction!, counterpart: counterpart ?? null };
}

// ── Recording ────────────────────────────────────────────────────────────────────────────────────────

export interface NewTransaction {
  walletId: string;
  walletField?: string;
  date: string;
  amountMinor: bigint;
  direction: Direction;
  toWalletId?: string | null;
  currency?: string;
  payee?: string | null;
  description?: string | null;
  category?: string | null;
  tags?: readonly string[] | null;
  notes?: string | null;
  externalId?: string | null;
  /** The expense an income refunds (checked by the caller: parts.ts and write.ts). */
  refundOf?: string | null;
  now: Date;
  /** Where the new rows' ids come from (ctx.ids); random when not given. */
  ids?: IdSource;
  /**
   * The row of walletId when the caller has already read it in this same transaction (create_transaction
   * reads it first for the amount's decimals): a second read of the same row would give the same answer.
   */
  wallet?: WalletRow;
}

export interface InsertedTransaction extends TransactionPair {
  warnings: Warning[];
}

/** How many days around the new transaction's date the possible-duplicate check looks (both ways). */
export const DUPLICATE_WINDOW_DAYS = 3;

export async function insertTransaction(trx: Knex, userId: string, input: NewTransaction): Promise<InsertedTransaction> {
  const walletField = input.walletField ?? "wallet_id";
  if (input.amountMinor <= 0n) throw new RangeError("insertTransaction: amountMinor must be a positive magnitude");

  const wallet =
    input.wallet && input.wallet.id === input.walletId && input.wallet.user_id === userId
      ? input.wallet
      : await getWalletRow(trx, userId, input.walletId, walletField);
  if (input.currency !== undefined && input.currency !== wallet.currency) {
    throw invalidParams(
      walletField,
      `a wallet in ${input.currency}`,
      `${walletField}: the wallet ${JSON.stringify(wallet.name)} holds ${wallet.currency}, but this amount is in ${input.currency}. Choose a wallet in ${input.currency}.`,
    );
  }

  let toWallet: WalletRow | undefined;
  if (input.direction === "transfer") {
    if (!input.toWalletId)
      throw invalidParams("to_wallet_id", "the id of the receiving wallet", "to_wallet_id: a transfer needs to_wallet_id, the wallet that receives the money.");
    if (input.toWalletId === wallet.id)
      throw invalidParams(
        "to_wallet_id",
        "a wallet other than wallet_id",
        "to_wallet_id: a transfer needs two different wallets; to_wallet_id equals wallet_id.",
      );
    toWallet = await getWalletRow(trx, userId, input.toWalletId, "to_wallet_id");
    if (toWallet.currency !== wallet.currency) {
      throw invalidParams(
        "to_wallet_id",
        `a wallet in ${wallet.currency}`,
        `to_wallet_id: transfers need both wallets in the same currency; ${JSON.stringify(wallet.name)} holds ${wallet.currency} and ${JSON.stringify(toWallet.name)} holds ${toWallet.currency}. Record an expense in one and an income in the other instead.`,
      );
    }
  } else if (input.toWalletId) {
    throw invalidParams(
      "to_wallet_id",
      "absent unless direction is transfer",
      `to_wallet_id: only a transfer has a receiving wallet; leave it out for ${input.direction === "expense" ? "an expense" : "an income"}.`,
    );
  }

  const externalId = input.externalId ?? null;
  if (externalId !== null) await assertExternalIdFree(trx, userId, wallet.id, externalId);

  const payee = cleanText(input.payee);
  const category = cleanText(input.category);
  const tags = normalizeTags(input.tags);
  const signed = input.direction === "income" ? input.amountMinor : -input.amountMinor;
  const warnings: Warning[] = [];
  if (wallet.archived) warnings.push(archivedWarning(wallet));
  if (toWallet?.archived) warnings.push(archivedWarning(toWallet));
  const duplicates = await possibleDuplicates(trx, userId, {
    walletId: wallet.id,
    date: input.date,
    amountMinor: signed,
    direction: input.direction,
    payee,
    externalId,
  });
  if (duplicates.length > 0) warnings.push(duplicateWarning(duplicates, wallet.currency));

  const at = input.now.toISOString();
  const ids = input.ids ?? randomIds;
  const transferId = toWallet ? ids.next("trf") : null;
  const base = {
    user_id: userId,
    date: input.date,
    currency: wallet.currency,
    direction: input.direction,
    payee,
    description: input.description ?? null,
    category,
    ...foldedKeys({ payee, category }),
    notes: input.notes ?? null,
    transfer_id: transferId,
    refund_of: input.refundOf ?? null,
    created_at: at,
    updated_at: at,
  };
  const rows = [
    { ...base, id: ids.next("txn"), wallet_id: wallet.id, amount_minor: signed, external_id: externalId, counterpart_wallet_id: toWallet?.id ?? null },
  ];
  if (toWallet)
    rows.push({ ...base, id: ids.next("txn"), wallet_id: toWallet.id, amount_minor: input.amountMinor, external_id: null, counterpart_wallet_id: wallet.id });

  try {
    await trx("transactions").insert(rows);
  } catch (err) {
    if (isUniqueViolation(err)) throw externalIdConflict(externalId ?? "", undefined);
    throw err;
  }
  await assertRunningTotals(trx, userId, toWallet ? [wallet, toWallet] : [wallet], "amount");
  if (tags.length > 0) {
    await trx("transaction_tags").insert(rows.flatMap((r) => tags.map((tag) => ({ transaction_id: r.id, user_id: userId, tag }))));
  }
  const [transaction, counterpart] = rows.map((r) => transactionFromRow(coerceTransactionRow(r), tags));
  return { transaction: transaction!, counterpart: counterpart ?? null, warnings };
}

export async function assertExternalIdFree(db: Knex, userId: string, walletId: string, externalId: string, exceptId?: string): Promise<void> {
  const q = db("transactions").where({ user_id: userId, wallet_id: walletId, external_id: externalId });
  if (exceptId) q.andWhereNot("id", exceptId);
  const clash = await q.first("id");
  if (clash) throw externalIdConflict(externalId, String(clash.id));
}

function externalIdConflict(externalId: string, existingId: string | undefined): AppError {
  return new AppError(
    "conflict",
    `external_id: the wallet already has a transaction with external_id ${JSON.stringify(externalId)}${existingId ? ` (${existingId})` : ""}, so this import line was probably recorded before. Skip it, or use another external_id if it really is a different transaction.`,
    existingId ? { field: "external_id", existing_id: existingId } : { field: "external_id" },
  );
}

function archivedWarning(wallet: WalletRow): Warning {
  return {
    code: "wallet_archived",
    message: `The wallet ${JSON.stringify(wallet.name)} is archived; the transaction was recorded anyway. Restore the wallet with update_wallet (archived: false) if it is in use again.`,
  };
}

export interface DuplicateProbe {
  walletId: string;
  date: string;
  amountMinor: bigint;
  direction: Direction;
  payee: string | null;
  externalId: string | null;
}

/**
 * Transactions of the same wallet and direction with the same signed amount and payee (case-insensitive;
 * both absent also matches) dated within DUPLICATE_WINDOW_DAYS of the new one. Two lines that both carry
 * different external_ids are distinct by the bank's own word and never match. Served by
 * (user_id, wallet_id, date, id): a few days of one wallet.
 */
export async function possibleDuplicates(db: Knex, userId: string, probe: DuplicateProbe, exceptIds: readonly string[] = []): Promise<TransactionRow[]> {
  const q = db("transactions")
    .where({ user_id: userId, wallet_id: probe.walletId, direction: probe.direction, amount_minor: probe.amountMinor })
    .andWhereBetween("date", [addDays(probe.date, -DUPLICATE_WINDOW_DAYS), addDays(probe.date, DUPLICATE_WINDOW_DAYS)]);
  if (probe.payee === null) q.whereNull("payee_key");
  else q.andWhere("payee_key", foldKey(probe.payee));
  if (exceptIds.length > 0) q.whereNotIn("id", [...exceptIds]);
  const rows = (await q.orderBy([{ column: "date" }, { column: "id" }]).limit(5)).map(coerceTransactionRow);
  return rows.filter((r) => probe.externalId === null || r.external_id === null || r.external_id === probe.externalId);
}

function duplicateWarning(matches: readonly TransactionRow[], currency: string): Warning {
  const first = matches[0]!;
  const what = `${formatMinor(first.amount_minor, currency)} ${currency}${first.payee ? ` to/from ${JSON.stringify(first.payee)}` : ""}`;
  const ids = matches.map((m) => `${m.id} on ${m.date}`).join(", ");
  return {
    code: "possible_duplicate",
    message: `This wallet already has ${matches.length === 1 ? "a transaction" : `${matches.length} transactions`} of ${what} within ${DUPLICATE_WINDOW_DAYS} days of this date (${ids}). It was recorded anyway; if it is the same payment, delete one with delete_transaction.`,
  };
}
