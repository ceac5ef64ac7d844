/**
 * update_transactions: one change to many transactions (docs/decisions.md#bulk-edits).
 *
 * The rows are list_transactions' rows for the same filters (resolveFilters → whereTransactions: one
 * filter code), plus exact payees (any of several) and a list of ids. The call states how many it expects: any other number is `conflict`
 * with the real count (data.transaction_count) and nothing is written, so a filter that grew or shrank
 * since the person looked never edits what they did not see. At most the spec's expected_count maximum
 * (5,000) rows per call: a larger count can never equal it.
 *
 * Edits: set_category, add_tags / remove_tags, set_payee (with the payee filter, a rename), and
 * move_to_wallet_id (same currency). A transfer leg is edited like any row (its category, tags and payee
 * are its own, as in update_transaction); a moved leg takes its transfer along (the other leg's
 * counterpart_wallet_id follows), and a move that would put both legs in one wallet is refused.
 *
 * Set-based: one UPDATE per kind of patch and chunk of ids, one DELETE and one INSERT of tag rows per
 * chunk, inside the write pipeline's transaction (one audit entry; the captured rows make it one undo).
 */
import type { Knex } from "knex";
import type { UpdateTransactionsParams, UpdateTransactionsResult, Warning } from "../../../generated/types.js";
import { toolsByName } from "../../../generated/registry.js";
import type { DomainContext } from "../../context.js";
import { AppError, invalidParams, notFound } from "../../errors.js";
import { byPrimaryKey, forUpdate } from "../../db/dialect.js";
import { toMoney, type Money } from "../../money/amount.js";
import { assertRunningTotalsOf } from "../wallets/ceiling.js";
import { getWalletRow, type WalletRow } from "../wallets/store.js";
import { cleanText, foldedKeys, foldKey, normalizeTags } from "../shared/text.js";
import { resolveFilters } from "./list.js";
import { transactionsQuery } from "./query.js";
import { coerceTransactionRow, tagsOf, type TransactionRow } from "./store.js";
import { markRefunds, splitPartsOf } from "./parts.js";

const tool = toolsByName.get("update_transactions")!;
type Schema = { properties: Record<string, { maximum?: number; maxItems?: number; properties?: Record<string, { maxItems?: number }> }> };
/** The spec's bounds (openrpc.json): rows per call, and rows shown in the answer. */
const MAX_ROWS = (tool.inputSchema as Schema).properties.expected_count!.maximum!;
const SHOWN_ROWS = (tool.outputSchema as Schema).properties.transactions!.maxItems!;
/** The most tags a transaction holds (TagList's maxItems). */
const MAX_TAGS = 20;
// Rows per statement, kept short: on SQLite a statement and its triggers run without a turn of the loop (issue 51).
const CHUNK = 100;

export interface ChangedTransaction {
  id: string;
  date: string;
  amount: Money;
  payee: string | null;
  changes: { field: string; before: unknown; after: unknown }[];
}

export interface BulkEdit {
  result: { matched: number; changed: number; transactions: UpdateTransactionsResult["transactions"]; warnings: Warning[] };
  /** What the audit entry keeps: the edit, the counts and every row it changed. */
  audit: { set: Record<string, unknown>; matched: number; changed: number; transaction_ids: string[]; counterpart_ids?: string[] };
}

const CHANGE_PARAMS = ["set_category", "add_tags", "remove_tags", "set_payee", "move_to_wallet_id"] as const;

/** An error about a filter member names it as filter.<member>. */
async function underFilter<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError && typeof err.details.field === "string" && !err.details.field.startsWith("filter.")) {
      throw new AppError(err.errorName, `filter.${err.message}`, { ...err.details, field: `filter.${err.details.field}` });
    }
    throw err;
  }
}

const chunks = <T>(xs: readonly T[]): T[][] => Array.from({ length: Math.ceil(xs.length / CHUNK) }, (_, i) => xs.slice(i * CHUNK, (i + 1) * CHUNK));

// eslint-disable-next-line max-lines-per-function -- split by h51loop's branch (issue 51)
export async function updateTransactions(ctx: DomainContext, p: UpdateTransactionsParams): Promise<BulkEdit> {
  const { db } = ctx;
  const userId = ctx.caller.userId;
  if (!CHANGE_PARAMS.some((k) => p[k] !== undefined))
    throw invalidParams(
      "(params)",
      `at least one of ${CHANGE_PARAMS.join(", ")}`,
      `update_transactions needs something to change: ${CHANGE_PARAMS.join(", ")}.`,
    );
  const add = normalizeTags(p.add_tags, "add_tags");
  const remove = normalizeTags(p.remove_tags, "remove_tags");
  const both = add.filter((t) => remove.includes(t));
  if (both.length > 0)
    throw invalidParams("remove_tags", "tags not also in add_tags", "remove_tags: a tag in it is also in add_tags; a tag is either added or removed.");
  const category = p.set_category === undefined ? undefined : cleanText(p.set_category);
  const payee = p.set_payee === undefined ? undefined : cleanText(p.set_payee);

  const filter = await underFilter(() => resolveFilters(db, userId, p.filter));
  // Any of several payees, or a list of ids ("Starbucks and the café", "these three"), with the filter.
  if (p.payee !== undefined) filter.payeeKey = typeof p.payee === "string" ? foldKey(p.payee) : [...new Set(p.payee.map((x) => foldKey(x)))];
  if (p.transaction_ids !== undefined) {
    filter.ids = [...new Set(p.transaction_ids)];
    // An id that is not one of the person's transactions is not_found, as for every id param: the same
    // answer for another person's id as for one that never existed.
    const own = new Set((await db("transactions").where({ user_id: userId }).whereIn("id", filter.ids).select("id")).map((r: { id: string }) => r.id));
    const missing = filter.ids.findIndex((id) => !own.has(id));
    if (missing >= 0) throw notFound("transaction", `transaction_ids.${p.transaction_ids.indexOf(filter.ids[missing]!)}`, filter.ids[missing]);
  }
  const target = p.move_to_wallet_id === undefined ? undefined : await getWalletRow(db, userId, p.move_to_wallet_id, "move_to_wallet_id");

  // The rows, locked (Postgres) for the rest of the write, newest first as list_transactions shows them.
  const raw = (await forUpdate(
    db,
    transactionsQuery(db, filter)
      .select("t.*")
      .orderBy([
        { column: "t.date", order: "desc" },
        { column: "t.id", order: "desc" },
      ])
      .limit(p.expected_count + 1),
  )) as Record<string, unknown>[];
  // The preview is bound to these rows as they are (src/writes/preview.ts): a commit passing its
  // preview_id is refused with stale_preview when one changed since, or rows joined or left.
  const bound = (total?: number) =>
    ctx.bindPreview?.({
      noun: "transactions",
      rows: raw.map((r) => ({ id: String(r.id), content: r, updatedAt: r.updated_at == null ? null : String(r.updated_at) })),
      ...(total === undefined ? {} : { total }),
    });
  if (raw.length !== p.expected_count) {
    const counted = await transactionsQuery(db, filter).count({ n: "*" }).first();
    const n = Number((counted as { n: unknown } | undefined)?.n ?? 0);
    bound(n);
    throw new AppError(
      "conflict",
      `expected_count: the filter matches ${n} transaction${n === 1 ? "" : "s"}, not ${p.expected_count}; nothing was changed. ${
        n > MAX_ROWS
          ? `One call changes at most ${MAX_ROWS}: narrow the filter (a date range), and edit the rest in further calls.`
          : n === 0
            ? "Check the filter with list_transactions."
            : `Check them with list_transactions and call again with expected_count ${n} if they are the ones meant.`
      }`,
      { field: "expected_count", transaction_count: n },
    );
  }
  bound();
  const rows = raw.map(coerceTransactionRow);
  const tags = await tagsOf(
    db,
    rows.map((r) => r.id),
  );
  const warnings: Warning[] = [];
  const others = target ? await checkMove(db, userId, rows, target, warnings) : new Map<string, TransactionRow>();
  // A split row's own category is null: its parts hold the categories and tags (docs/decisions.md, the
  // bulk edit's "Split transactions").
  const split = await splitPartsOf(
    db,
    userId,
    rows.map((r) => r.id),
  );
  const partPatches: { transactionId: string; position: number; patch: Record<string, unknown> }[] = [];
  const recategorized: string[] = [];
  let splitKept = 0;

  // What changes on each row.
  const at = ctx.now().toISOString();
  const shown: ChangedTransaction[] = [];
  const changedIds: string[] = [];
  const byPatch = new Map<string, { patch: Record<string, unknown>; ids: string[] }>();
  const tagAdds: { transaction_id: string; user_id: string; tag: string }[] = [];
  const tagRemovals: string[] = [];
  const moved: TransactionRow[] = [];
  for (const row of rows) {
    const changes: ChangedTransaction["changes"] = [];
    const patch: Record<string, unknown> = {};
    const parts = split.get(row.id);
    if (category !== undefined && parts) {
      // Only the parts in the filtered category take the new one; without a category filter, one
      // category for the whole row would undo the split, so its parts keep theirs.
      if (filter.categoryKey === undefined) splitKept++;
      else
        for (const part of parts)
          if (part.categoryKey === filter.categoryKey && part.category !== category) {
            changes.push({ field: `parts[${part.position}].category`, before: part.category, after: category });
            partPatches.push({ transactionId: row.id, position: part.position, patch: { category, ...foldedKeys({ category }) } });
            recategorized.push(row.id);
          }
    } else if (category !== undefined && row.category !== category) {
      changes.push({ field: "category", before: row.category, after: category });
      Object.assign(patch, { category, ...foldedKeys({ category }) });
      recategorized.push(row.id);
    }
    if (payee !== undefined && row.payee !== payee) {
      changes.push({ field: "payee", before: row.payee, after: payee });
      Object.assign(patch, { payee, ...foldedKeys({ payee }) });
    }
    if (target && row.wallet_id !== target.id) {
      changes.push({ field: "wallet_id", before: row.wallet_id, after: target.id });
      patch.wallet_id = target.id;
      moved.push(row);
    }
    const before = tags.get(row.id) ?? [];
    const after = [...new Set([...before.filter((t) => !remove.includes(t)), ...add])].sort();
    if (after.join("\n") !== before.join("\n")) {
      if (after.length > MAX_TAGS)
        throw invalidParams(
          "add_tags",
          `at most ${MAX_TAGS} tags on each transaction`,
          `add_tags: transaction ${row.id} would have ${after.length} tags; a transaction holds at most ${MAX_TAGS}. Remove some with remove_tags, or leave it out of the filter.`,
        );
      changes.push({ field: "tags", before, after });
      for (const tag of add) if (!before.includes(tag)) tagAdds.push({ transaction_id: row.id, user_id: userId, tag });
      if (remove.some((t) => before.includes(t))) tagRemovals.push(row.id);
      // A split row's tags are the union of its parts' tags: each part gains and loses them too.
      for (const part of parts ?? []) {
        const partTags = [...new Set([...part.tags.filter((t) => !remove.includes(t)), ...add])].sort();
        if (partTags.join("\n") !== part.tags.join("\n"))
          partPatches.push({ transactionId: row.id, position: part.position, patch: { tags: JSON.stringify(partTags) } });
      }
    }
    if (changes.length === 0) continue;
    changedIds.push(row.id);
    if (shown.length < SHOWN_ROWS) shown.push({ id: row.id, date: row.date, amount: toMoney(row.amount_minor, row.currency), payee: row.payee, changes });
    const key = Object.keys(patch).sort().join(",");
    const group = byPatch.get(key) ?? { patch: { ...patch, updated_at: at }, ids: [] };
    group.ids.push(row.id);
    byPatch.set(key, group);
  }

  // Set-based writes. A row whose only change is its tags still gets its updated_at.
  for (const { patch, ids } of byPatch.values())
    for (const chunk of chunks(ids)) await byPrimaryKey(db, "transactions").where("user_id", userId).whereIn("id", chunk).update(patch);
  for (const chunk of chunks(tagRemovals))
    await db("transaction_tags").where("user_id", userId).whereIn("transaction_id", chunk).whereIn("tag", remove).delete();
  for (const chunk of chunks(tagAdds)) await db("transaction_tags").insert(chunk);
  for (const { transactionId, position, patch } of partPatches)
    await db("transaction_parts").where({ user_id: userId, transaction_id: transactionId, position }).update(patch);
  // Whether an income (or an income's part) is a refund depends on its category (docs/ledger.md, "Refunds").
  await markRefunds(db, userId, [...new Set(recategorized)]);
  const counterpartIds: string[] = [];
  if (target && moved.length > 0) {
    // The other leg of each moved transfer leg now points at the new wallet.
    for (const leg of moved) {
      const other = others.get(leg.id);
      if (other) counterpartIds.push(other.id);
    }
    for (const chunk of chunks(counterpartIds))
      await byPrimaryKey(db, "transactions").where("user_id", userId).whereIn("id", chunk).update({ counterpart_wallet_id: target.id, updated_at: at });
    await assertRunningTotalsOf(db, userId, [target.id, ...new Set(moved.map((r) => r.wallet_id))], "move_to_wallet_id");
  }

  if (splitKept > 0)
    warnings.push({
      code: "split_rows_kept",
      message: `${splitKept} split transaction${splitKept === 1 ? " keeps its parts' categories" : "s keep their parts' categories"}: filter by a category to re-file only the parts in it, or change them with update_transaction.`,
    });
  if (changedIds.length === 0)
    warnings.push({ code: "nothing_changed", message: `All ${rows.length} matching transactions already have these values; nothing was changed.` });
  const set: Record<string, unknown> = {};
  if (category !== undefined) set.category = category;
  if (add.length > 0) set.add_tags = add;
  if (remove.length > 0) set.remove_tags = remove;
  if (payee !== undefined) set.payee = payee;
  if (target) set.wallet_id = target.id;
  return {
    // At most SHOWN_ROWS (the spec's maxItems, which the generated type spells as tuples).
    result: { matched: rows.length, changed: changedIds.length, transactions: shown as UpdateTransactionsResult["transactions"], warnings },
    audit: {
      set,
      matched: rows.length,
      changed: changedIds.length,
      transaction_ids: changedIds,
      ...(counterpartIds.length > 0 ? { counterpart_ids: counterpartIds } : {}),
    },
  };
}

/**
 * A move to `target`: every row in its currency; no transfer leg in the wallet of its other leg after the
 * move; no two rows with one external id in the target wallet. Answers the other legs of moved transfer
 * legs, by the moved leg's id.
 */
async function checkMove(
  db: Knex,
  userId: string,
  rows: readonly TransactionRow[],
  target: WalletRow,
  warnings: Warning[],
): Promise<Map<string, TransactionRow>> {
  const foreign = rows.filter((r) => r.currency !== target.currency);
  if (foreign.length > 0)
    throw invalidParams(
      "move_to_wallet_id",
      `a wallet in the transactions' currency`,
      `move_to_wallet_id: the wallet ${JSON.stringify(target.name)} holds ${target.currency}, but ${foreign.length} of the transactions are in ${foreign[0]!.currency} (${foreign[0]!.id}); a transaction moves only to a wallet of its currency. Add currency ${target.currency} to the filter.`,
    );
  if (target.archived)
    warnings.push({ code: "wallet_archived", message: `The wallet ${JSON.stringify(target.name)} is archived; the transactions were moved anyway.` });
  const moving = rows.filter((r) => r.wallet_id !== target.id);
  const movingIds = new Set(moving.map((r) => r.id));
  const others = new Map<string, TransactionRow>();
  const legs = moving.filter((r) => r.transfer_id !== null);
  for (const chunk of chunks(legs)) {
    const found = (
      (await forUpdate(
        db,
        db("transactions")
          .where("user_id", userId)
          .whereIn(
            "transfer_id",
            chunk.map((r) => r.transfer_id!),
          )
          .select("*"),
      )) as Record<string, unknown>[]
    ).map(coerceTransactionRow);
    for (const leg of chunk) {
      const other = found.find((o) => o.transfer_id === leg.transfer_id && o.id !== leg.id);
      if (other) others.set(leg.id, other);
    }
  }
  for (const [legId, other] of others) {
    // The other leg stays where it is unless it moves too (then both would be in the target).
    const otherWallet = movingIds.has(other.id) || other.wallet_id === target.id ? target.id : other.wallet_id;
    if (otherWallet === target.id)
      throw invalidParams(
        "move_to_wallet_id",
        "a wallet other than the other side of each transfer",
        `move_to_wallet_id: transaction ${legId} is a leg of a transfer whose other side would then be in ${JSON.stringify(target.name)} too; a transfer needs two different wallets. Leave transfers out with filter.direction, or narrow the filter.`,
      );
  }
  const external = moving.filter((r) => r.external_id !== null);
  const seen = new Map<string, string>();
  for (const r of external) {
    const earlier = seen.get(r.external_id!);
    if (earlier !== undefined)
      throw new AppError("conflict", `move_to_wallet_id: ${earlier} and ${r.id} carry the same external_id; one wallet holds each external id once.`, {
        field: "move_to_wallet_id",
        existing_id: earlier,
      });
    seen.set(r.external_id!, r.id);
  }
  for (const chunk of chunks(external)) {
    const clash = await db("transactions")
      .where({ user_id: userId, wallet_id: target.id })
      .whereIn(
        "external_id",
        chunk.map((r) => r.external_id!),
      )
      .first("id", "external_id");
    if (clash)
      throw new AppError(
        "conflict",
        `move_to_wallet_id: the wallet ${JSON.stringify(target.name)} already has transaction ${String(clash.id)} with the external_id of ${seen.get(String(clash.external_id))}; one wallet holds each external id once. Leave that transaction out of the filter.`,
        { field: "move_to_wallet_id", existing_id: String(clash.id) },
      );
  }
  return others;
}
