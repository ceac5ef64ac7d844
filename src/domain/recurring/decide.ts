/**
 * set_recurring_series: keeps the person's decision on one of their regular payments (decisions.ts), one
 * row per user and series key, replaced by a later decision. It runs in the write pipeline, so it is dry-run,
 * idempotent, audited, undoable (recurring_decisions is captured) and announced like every write.
 *
 * The series must be one list_recurring shows (ended ones too), one the person decided on before (a
 * dismissed series is no longer listed, and may be confirmed or corrected again), or a payee's charges
 * detection did not take for a series (a correction's amount range may make one of them): a key of
 * nothing would keep a decision the person never sees. Amounts are in the series' currency (its key names it).
 */
import { isKnownCurrency } from "../../money/currencies.js";
import type { DomainContext } from "../../context.js";
import { invalidParams, AppError } from "../../errors.js";
import { todayOf } from "../../calendar/time-zones.js";
import { toMoney, type Money } from "../../money/amount.js";
import { parseAmountParam } from "../shared/amounts.js";
import { cleanText } from "../shared/text.js";
import { type Decision, parseSeriesKey } from "./decisions.js";
import { payeeKey } from "./detect.js";
import { regularPayments } from "./series.js";
import { recurringInputs } from "./store.js";

export interface SeriesParams {
  series: string;
  decision: "confirm" | "dismiss" | "correct";
  payee?: string;
  amount_min?: string;
  amount_max?: string;
  day_from?: number;
  day_to?: number;
}

export interface DecisionView {
  series: string;
  decision: Decision;
  payee: string | null;
  amount_min: Money | null;
  amount_max: Money | null;
  day_from: number | null;
  day_to: number | null;
}

const DECISION: Readonly<Record<SeriesParams["decision"], Decision>> = { confirm: "confirmed", dismiss: "dismissed", correct: "corrected" };
const CORRECTIONS = ["payee", "amount_min", "amount_max", "day_from", "day_to"] as const;

interface DecisionRow {
  id: string;
  series_key: string;
  decision: string;
  payee: string | null;
  amount_min_minor: unknown;
  amount_max_minor: unknown;
  day_from: unknown;
  day_to: unknown;
}

const minor = (v: unknown) => (v === null || v === undefined ? null : BigInt(String(v)));
const day = (v: unknown) => (v === null || v === undefined ? null : Number(v));

function viewOf(r: DecisionRow, currency: string): DecisionView {
  const min = minor(r.amount_min_minor);
  const max = minor(r.amount_max_minor);
  return {
    series: r.series_key,
    decision: r.decision as Decision,
    payee: r.payee ?? null,
    amount_min: min === null ? null : toMoney(min, currency),
    amount_max: max === null ? null : toMoney(max, currency),
    day_from: day(r.day_from),
    day_to: day(r.day_to),
  };
}

function dayParam(v: number | undefined, field: string): number | null {
  if (v === undefined) return null;
  if (!Number.isInteger(v) || v < 1 || v > 31) throw invalidParams(field, "a day of the month, 1 to 31", `${field}: a day of the month, 1 to 31 (got ${v})`);
  return v;
}

const notASeries = (key: string) =>
  new AppError("not_found", `series: no regular payment ${JSON.stringify(key)} of this user. Call list_recurring and pass a series as it gives it.`, {
    field: "series",
    expected: "the series of one of the user's regular payments (list_recurring)",
  });

/** Keeps the decision; answers it as it is now and as it was before (null: none). */
export async function setRecurringSeries(ctx: DomainContext, p: SeriesParams): Promise<{ id: string; before: DecisionView | null; after: DecisionView }> {
  const userId = ctx.caller.userId;
  const parsed = parseSeriesKey(p.series);
  // A key in a currency no money is in names no series: not_found on series, before any amount is read in it.
  if (!parsed || !isKnownCurrency(parsed.currency)) throw notASeries(p.series);
  const decision = DECISION[p.decision];
  if (decision !== "corrected") {
    const extra = CORRECTIONS.find((f) => p[f] !== undefined);
    if (extra) throw invalidParams(extra, `no ${extra} unless decision is correct`, `${extra}: only a correction (decision: correct) takes ${extra}.`);
  } else if (CORRECTIONS.every((f) => p[f] === undefined))
    throw invalidParams(
      "payee",
      "at least one of payee, amount_min, amount_max, day_from, day_to",
      "payee: a correction names at least one of payee, amount_min, amount_max, day_from, day_to.",
    );
  const min = p.amount_min === undefined ? null : parseAmountParam(p.amount_min, parsed.currency, "amount_min");
  const max = p.amount_max === undefined ? null : parseAmountParam(p.amount_max, parsed.currency, "amount_max");
  if (min !== null && max !== null && min > max) throw invalidParams("amount_max", "at least amount_min", "amount_max: less than amount_min.");
  const dayFrom = dayParam(p.day_from, "day_from");
  const dayTo = dayParam(p.day_to, "day_to");
  const payee = p.payee === undefined ? null : cleanText(p.payee);
  if (payee === "") throw invalidParams("payee", "a payee name", "payee: blank.");

  const found = (await ctx.db("recurring_decisions").where({ user_id: userId, series_key: p.series }).first()) as DecisionRow | undefined;
  if (!found) {
    const { charges, bills, decisions } = await recurringInputs(ctx.db, userId);
    const ofCharges = charges.some((c) => c.direction === parsed.direction && c.currency === parsed.currency && payeeKey(c.payee) === parsed.payee);
    if (!ofCharges && !regularPayments(charges, bills, todayOf(ctx), decisions).some((s) => s.seriesKey === p.series)) throw notASeries(p.series);
  }
  const at = ctx.now().toISOString();
  const values = {
    decision,
    payee,
    amount_min_minor: min === null ? null : min.toString(),
    amount_max_minor: max === null ? null : max.toString(),
    day_from: dayFrom,
    day_to: dayTo,
    updated_at: at,
  };
  const id = found?.id ?? ctx.ids.next("rcd");
  if (found) await ctx.db("recurring_decisions").where({ id: found.id, user_id: userId }).update(values);
  else await ctx.db("recurring_decisions").insert({ id, user_id: userId, series_key: p.series, created_at: at, ...values });
  return {
    id,
    before: found ? viewOf(found, parsed.currency) : null,
    after: viewOf({ id, series_key: p.series, ...values }, parsed.currency),
  };
}
