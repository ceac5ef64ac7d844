/**
 * list_categories and list_tags: the labels a user's transactions carry, most used first (ties by the
 * folded name), each with its transaction count, last day used and expenses per currency, optionally
 * within dates. One GROUP BY per page over the user's rows (index (user_id, date, id) when dates are
 * given) and one for the page's spending, in one statement; keyset paging over (count desc, key asc) with HAVING, so a
 * page never re-reads the ones before it in JavaScript.
 */
import type { Knex } from "knex";
import type { DomainContext } from "../../context.js";
import { todayOf } from "../../calendar/time-zones.js";
import type { LabelUse, ListCategoriesParams } from "../../../generated/types.js";
import { toMinorBigInt, toMoney, type MinorLike } from "../../money/amount.js";
import { decodeCursor, encodeCursor, pageSize, queryFingerprint, splitPage } from "../paging.js";
import { partTagsJoinSql } from "../../db/dialect.js";
import { checkDateRange, LINE, linesQuery, type TransactionFilter } from "./query.js";
import { SPENDING } from "./spending.js";

/** How many transactions use a label (distinct: a split row's parts are lines of one transaction). */
const COUNT = "COUNT(DISTINCT t.id)";

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
  // Over lines (query.ts): a split transaction's parts each in their own category and tags.
  const q = linesQuery(db, filter);
  if (kind === "category") return { q, key: LINE.categoryKey, name: `MIN(${LINE.category})` };
  // A line's tags: an unsplit transaction's own (transaction_tags), or a part's (its JSON list). Joined by
  // the transaction's id alone (its tags are its user's), so each line reads its own tags through the
  // primary key; a user_id term let SQLite pick (user_id, tag) and read all the person's tags per line
  // (test/writes/read-plans.test.ts).
  q.leftJoin({ g: "transaction_tags" }, function () {
    this.on("g.transaction_id", "=", "t.id").andOnNull("p.transaction_id");
  })
    .joinRaw(partTagsJoinSql(db, "p.tags", "pt"))
    .whereRaw("COALESCE(g.tag, pt.value) IS NOT NULL");
  // Tags are stored folded (lower case); a category keeps its spellings under one folded key.
  return { q, key: "COALESCE(g.tag, pt.value)", name: "MIN(COALESCE(g.tag, pt.value))" };
}

/**
 * `today` is the user's day: a row dated after it is scheduled, not used yet, so last_used is the latest
 * day up to today (null when every use is scheduled), `scheduled` counts the later ones and `spent` leaves
 * them out. `transactions` counts every use, so the order and the paging do not move with the clock.
 */
/** list_categories and list_tags: listLabels as of the caller's today. */
async function listLabelsOf(ctx: DomainContext, kind: LabelKind, p: LabelParams): Promise<{ labels: LabelUse[]; next_cursor: string | null }> {
  return listLabels(ctx.db, ctx.caller.userId, kind, p, todayOf(ctx));
}

/** list_categories. */
export async function listCategoriesOf(ctx: DomainContext, p: LabelParams): Promise<{ labels: LabelUse[]; next_cursor: string | null }> {
  return listLabelsOf(ctx, "category", p);
}

/** list_tags. */
export async function listTagsOf(ctx: DomainContext, p: LabelParams): Promise<{ labels: LabelUse[]; next_cursor: string | null }> {
  return listLabelsOf(ctx, "tag", p);
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

  // One statement: the page (a CTE, materialized: it is read twice) and, for its labels, the spending
  // net of refunds (an income line flagged refund) per currency, the refunds shown apart, joined to it.
  const { q, key, name } = source(db, kind, userId, p);
  q.select(
    db.raw(`${key} AS k`),
    db.raw(`${name} AS name`),
    // Transactions, not lines: a split row with two parts in one category uses it once.
    db.raw(`${COUNT} AS n`),
    db.raw("MAX(CASE WHEN t.date <= ? THEN t.date END) AS last_used", [today]),
    db.raw("COUNT(DISTINCT CASE WHEN t.date > ? THEN t.id END) AS scheduled", [today]),
  ).groupByRaw(key);
  if (after) q.havingRaw(`${COUNT} < ? OR (${COUNT} = ? AND ${key} > ?)`, [after.n, after.n, after.k]);
  q.orderByRaw(`${COUNT} DESC, ${key} ASC`).limit(size + 1);
  const sums = source(db, kind, userId, p)
    .q.andWhereRaw(SPENDING.isSpending)
    .andWhere("t.date", "<=", today)
    .whereRaw(`${key} IN (SELECT lp.k FROM label_page lp)`)
    .select(db.raw(`${key} AS k`), "t.currency", db.raw(`${SPENDING.spent} AS spent`), db.raw(`${SPENDING.refunds} AS refunds`))
    .groupByRaw(`${key}, t.currency`);
  const joined = (await db
    .withMaterialized("label_page", q)
    .with("label_sums", sums)
    .from("label_page")
    .leftJoin("label_sums", "label_sums.k", "label_page.k")
    .select("label_page.*", "label_sums.currency", { spent: "label_sums.spent" }, { refunds: "label_sums.refunds" })
    .orderBy([{ column: "label_page.n", order: "desc" }, { column: "label_page.k" }, { column: "label_sums.currency" }])) as {
    k: string;
    name: string;
    n: unknown;
    last_used: string | null;
    scheduled: unknown;
    currency: string | null;
    spent: MinorLike | null;
    refunds: MinorLike | null;
  }[];
  // A label per row of the page, in the page's order; its spending one row per currency.
  const byKey = new Map<string, (typeof joined)[number]>();
  const spent = new Map<string, LabelUse["spent"]>();
  const refunds = new Map<string, LabelUse["spent"]>();
  for (const r of joined) {
    if (!byKey.has(r.k)) byKey.set(r.k, r);
    if (r.currency === null) continue;
    spent.set(r.k, [...(spent.get(r.k) ?? []), toMoney(toMinorBigInt(r.spent ?? 0), r.currency)]);
    const back = toMinorBigInt(r.refunds ?? 0);
    if (back !== 0n) refunds.set(r.k, [...(refunds.get(r.k) ?? []), toMoney(back, r.currency)]);
  }
  const { page, hasMore, last } = splitPage([...byKey.values()], size);

  return {
    labels: page.map((r) => {
      const scheduled = Number(r.scheduled ?? 0);
      const use: LabelUse = {
        name: String(r.name),
        transactions: Number(r.n),
        last_used: r.last_used == null ? null : String(r.last_used),
        spent: spent.get(r.k) ?? [],
      };
      const back = refunds.get(r.k);
      if (back) use.refunds = back;
      return scheduled > 0 ? { ...use, scheduled } : use;
    }),
    next_cursor: hasMore && last ? encodeCursor(fingerprint, { n: Number(last.n), k: last.k }) : null,
  };
}
