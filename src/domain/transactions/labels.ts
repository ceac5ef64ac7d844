/**
 * list_categories and list_tags: the labels a user's transactions carry, most used first (ties by the
 * folded name), each with its transaction count, last day used and expenses per currency, optionally
 * within dates. One GROUP BY per page over the user's rows (index (user_id, date, id) when dates are
 * given), then one for the page's spending; keyset paging over (count desc, key asc) with HAVING, so a
 * page never re-reads the ones before it in JavaScript.
 */
import type { Knex } from "knex";
import type { DomainContext } from "../../context.js";
import { todayOf } from "../../calendar/time-zones.js";
import type { LabelUse, ListCategoriesParams } from "../../../generated/types.js";
import { toMinorBigInt, toMoney, type MinorLike } from "../../money/amount.js";
import { decodeCursor, encodeCursor, pageSize, queryFingerprint, splitPage } from "../paging.js";
import { checkDateRange, transactionsQuery, whereTransactions, type TransactionFilter } from "./query.js";

export type LabelKind = "category" | "tag";

/** Both tools take the same params. */
export type LabelParams = ListCategoriesParams;

interface Position extends Record<string, unknown> {
  n: number;
  k: string;
}

const isPosition = (c: Record<string, unknown>): c is Position =>
  Number.isSafeInteger(c.n) && (c.n as number) >= 1 && typeof c.k === "string" && c.k.length <= 200;

/** The rows one label kind is counted over: `key` folds spellings together, `name` is one of them. */
function source(db: Knex, kind: LabelKind, userId: string, p: LabelParams): { q: Knex.QueryBuilder; key: string; name: string } {
  const filter: TransactionFilter = { userId, categorized: kind === "category" };
  if (p.date_from !== undefined) filter.dateFrom = p.date_from;
  if (p.date_to !== undefined) filter.dateTo = p.date_to;
  const q =
    kind === "category"
      ? transactionsQuery(db, filter)
      : whereTransactions(
          db,
          db({ g: "transaction_tags" })
            .join({ t: "transactions" }, function () {
              this.on("t.id", "=", "g.transaction_id").andOn("t.user_id", "=", "g.user_id");
            })
            .where("g.user_id", userId),
          filter,
        );
  // Tags are stored folded (lower case); a category keeps its spellings under one folded key.
  return kind === "category" ? { q, key: "t.category_key", name: "MIN(t.category)" } : { q, key: "g.tag", name: "g.tag" };
}

/**
 * `today` is the user's day: a row dated after it is scheduled, not used yet, so last_used is the latest
 * day up to today (null when every use is scheduled), `scheduled` counts the later ones and `spent` leaves
 * them out. `transactions` counts every use, so the order and the paging do not move with the clock.
 */
/** list_categories and list_tags: listLabels as of the caller's today. */
export async function listLabelsOf(ctx: DomainContext, kind: LabelKind, p: LabelParams): Promise<{ labels: LabelUse[]; next_cursor: string | null }> {
  return listLabels(ctx.db, ctx.caller.userId, kind, p, todayOf(ctx));
}

export async function listLabels(
  db: Knex,
  userId: string,
  kind: LabelKind,
  p: LabelParams,
  today: string,
): Promise<{ labels: LabelUse[]; next_cursor: string | null }> {
  checkDateRange(p.date_from, p.date_to);
  const size = pageSize(p.limit);
  const fingerprint = queryFingerprint({ kind, date_from: p.date_from, date_to: p.date_to });
  const after = p.cursor !== undefined ? decodeCursor(p.cursor, fingerprint, isPosition) : undefined;

  const { q, key, name } = source(db, kind, userId, p);
  q.select(
    db.raw(`${key} AS k`),
    db.raw(`${name} AS name`),
    db.raw("COUNT(*) AS n"),
    db.raw("MAX(CASE WHEN t.date <= ? THEN t.date END) AS last_used", [today]),
    db.raw("SUM(CASE WHEN t.date > ? THEN 1 ELSE 0 END) AS scheduled", [today]),
  ).groupBy(key);
  if (after) q.havingRaw(`COUNT(*) < ? OR (COUNT(*) = ? AND ${key} > ?)`, [after.n, after.n, after.k]);
  const rows = (await q.orderByRaw(`COUNT(*) DESC, ${key} ASC`).limit(size + 1)) as {
    k: string;
    name: string;
    n: unknown;
    last_used: string | null;
    scheduled: unknown;
  }[];
  const { page, hasMore, last } = splitPage(rows, size);

  const spent = new Map<string, LabelUse["spent"]>();
  if (page.length > 0) {
    const s = source(db, kind, userId, p);
    const sums = (await s.q
      .where("t.direction", "expense")
      .andWhere("t.date", "<=", today)
      .whereIn(
        key,
        page.map((r) => r.k),
      )
      .select(db.raw(`${key} AS k`), "t.currency", db.raw("SUM(-t.amount_minor) AS spent"))
      .groupBy(key, "t.currency")
      .orderBy("t.currency")) as { k: string; currency: string; spent: MinorLike }[];
    for (const r of sums) {
      const list = spent.get(r.k) ?? [];
      list.push(toMoney(toMinorBigInt(r.spent), r.currency));
      spent.set(r.k, list);
    }
  }
  return {
    labels: page.map((r) => {
      const scheduled = Number(r.scheduled ?? 0);
      const use: LabelUse = {
        name: String(r.name),
        transactions: Number(r.n),
        last_used: r.last_used == null ? null : String(r.last_used),
        spent: spent.get(r.k) ?? [],
      };
      return scheduled > 0 ? { ...use, scheduled } : use;
    }),
    next_cursor: hasMore && last ? encodeCursor(fingerprint, { n: Number(last.n), k: last.k }) : null,
  };
}
