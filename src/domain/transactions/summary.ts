/**
 * get_transaction_summary: income, expenses, net and count per currency, optionally per group, computed
 * by SQL aggregation over the date range (index (user_id, date, id), or (user_id, wallet_id, date, id)
 * with a wallet). Transfers are excluded. The sums are BIGINT SUMs: pg answers them as numeric strings,
 * better-sqlite3 as BigInts; both become BigInt here, and net is income − expenses in BigInt. No row is
 * loaded into JavaScript, only one row per (currency, group). Grouped by anything but tag, the totals are
 * the groups added up (one statement); by tag, or ungrouped, they are their own statement.
 */
import type { DomainContext } from "../../context.js";
import type { GetTransactionSummaryParams, GetTransactionSummaryResult, SummaryGroup, SummaryTotal } from "../../../generated/types.js";
import { toMinorBigInt, toMoney, type MinorLike } from "../../money/amount.js";
import { getWalletRow } from "../wallets/store.js";
import { foldKey, normalizeTags } from "../shared/text.js";
import { partTagsJoinSql } from "../../db/dialect.js";
import { checkDateRange, LINE, type TransactionFilter } from "./query.js";
import { moneyLinesQuery, SPENDING } from "./spending.js";

interface Figures {
  currency: string;
  income: bigint;
  expenses: bigint;
  refunds: bigint;
  count: number;
}

// Spending net of refunds, refunds apart, income without them: the one rule of spending.ts.
const INCOME = SPENDING.income;
const EXPENSES = SPENDING.spent;
const REFUNDS = SPENDING.refunds;

function figures(raw: Record<string, unknown>): Figures {
  return {
    currency: String(raw.currency),
    income: toMinorBigInt((raw.income ?? 0n) as MinorLike),
    expenses: toMinorBigInt((raw.expenses ?? 0n) as MinorLike),
    refunds: toMinorBigInt((raw.refunds ?? 0n) as MinorLike),
    count: Number(raw.n ?? 0),
  };
}

function money(f: Figures) {
  return {
    currency: f.currency,
    income: toMoney(f.income, f.currency),
    expenses: toMoney(f.expenses, f.currency),
    net: toMoney(f.income - f.expenses, f.currency),
    count: f.count,
    ...(f.refunds !== 0n ? { refunds: toMoney(f.refunds, f.currency) } : {}),
  };
}

const byCode = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export async function transactionSummary(ctx: DomainContext, p: GetTransactionSummaryParams): Promise<GetTransactionSummaryResult> {
  const { db } = ctx;
  const { userId } = ctx.caller;
  checkDateRange(p.date_from, p.date_to);
  // Transfers move money between the user's own wallets: neither income nor spending. direction picks
  // a side (spending.ts): "expense" keeps the refunds taken off it, so it never says more was spent.
  const filter: Omit<TransactionFilter, "direction"> = { userId, dateFrom: p.date_from, dateTo: p.date_to };
  if (p.wallet_id !== undefined) filter.walletId = (await getWalletRow(db, userId, p.wallet_id, "wallet_id")).id;
  if (p.currency !== undefined) filter.currency = p.currency;
  if (p.category !== undefined) filter.categoryKey = foldKey(p.category);
  if (p.tags_any !== undefined) filter.tagsAny = normalizeTags(p.tags_any, "tags_any");
  // The same filters, with the same meanings, as list_transactions.
  const base = () => moneyLinesQuery(db, filter, p.direction);
  const sums = [db.raw(`${INCOME} AS income`), db.raw(`${EXPENSES} AS expenses`), db.raw(`${REFUNDS} AS refunds`), db.raw("COUNT(*) AS n")];

  let groups: SummaryGroup[] = [];
  let groupFigures: Figures[] | undefined;
  if (p.group_by !== undefined) {
    let rows: Record<string, unknown>[];
    switch (p.group_by) {
      case "category":
        // One group per folded category; its key and label are one of the spellings used (MIN).
        rows = await base()
          .select("t.currency", db.raw(`MIN(${LINE.category}) AS k`), db.raw(`MIN(${LINE.category}) AS label`), ...sums)
          .groupByRaw(`t.currency, ${LINE.categoryKey}`);
        break;
      case "payee":
        rows = await base()
          .select("t.currency", db.raw("MIN(t.payee) AS k"), db.raw("MIN(t.payee) AS label"), ...sums)
          .groupBy("t.currency", "t.payee_key");
        break;
      case "month":
        rows = await base()
          .select("t.currency", db.raw("substr(t.date, 1, 7) AS k"), db.raw("substr(t.date, 1, 7) AS label"), ...sums)
          .groupByRaw("t.currency, substr(t.date, 1, 7)");
        break;
      case "wallet":
        rows = await base()
          .join({ w: "wallets" }, function () {
            this.on("w.id", "=", "t.wallet_id").andOn("w.user_id", "=", "t.user_id");
          })
          .select("t.currency", "t.wallet_id as k", "w.name as label", ...sums)
          .groupBy("t.currency", "t.wallet_id", "w.name");
        break;
      case "tag":
        // A line counts once in each of its tags (a transaction's own, or a part's); untagged ones form
        // the null group.
        rows = await base()
          .leftJoin({ g: "transaction_tags" }, function () {
            this.on("g.transaction_id", "=", "t.id").andOn("g.user_id", "=", "t.user_id").andOnNull("p.transaction_id");
          })
          .joinRaw(partTagsJoinSql(db, "p.tags", "pt"))
          .select("t.currency", db.raw("COALESCE(g.tag, pt.value) AS k"), db.raw("COALESCE(g.tag, pt.value) AS label"), ...sums)
          .groupByRaw("t.currency, COALESCE(g.tag, pt.value)");
        break;
    }
    const withKeys = rows.map((r) => ({ key: r.k == null ? null : String(r.k), label: r.label == null ? null : String(r.label), f: figures(r) }));
    // Every transaction is in exactly one group except by tag (one per tag, or none): there the totals
    // need their own statement; otherwise they are the groups added up, exactly, in BigInt.
    if (p.group_by !== "tag") groupFigures = withKeys.map((g) => g.f);
    withKeys.sort((a, b) => {
      if (p.group_by !== "month") {
        if (a.f.expenses !== b.f.expenses) return a.f.expenses > b.f.expenses ? -1 : 1;
      }
      if (a.key !== b.key) {
        if (a.key === null) return 1;
        if (b.key === null) return -1;
        return byCode(a.key, b.key);
      }
      return byCode(a.f.currency, b.f.currency);
    });
    // A label only where it says more than the key (a wallet's name for its id): never the key twice.
    groups = withKeys.map(({ key, label, f }) => ({ key, label: label === key ? null : label, ...money(f) }));
  }
  let totalFigures: Figures[];
  if (groupFigures) {
    const byCurrency = new Map<string, Figures>();
    for (const g of groupFigures) {
      const t = byCurrency.get(g.currency);
      if (t) {
        t.income += g.income;
        t.expenses += g.expenses;
        t.refunds += g.refunds;
        t.count += g.count;
      } else byCurrency.set(g.currency, { ...g });
    }
    totalFigures = [...byCurrency.values()];
  } else {
    const totalRows: Record<string, unknown>[] = await base()
      .select("t.currency", ...sums)
      .groupBy("t.currency");
    totalFigures = totalRows.map(figures);
  }
  const totals: SummaryTotal[] = totalFigures.sort((a, b) => byCode(a.currency, b.currency)).map(money);
  return { date_from: p.date_from, date_to: p.date_to, totals, groups };
}
