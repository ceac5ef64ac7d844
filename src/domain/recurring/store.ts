/**
 * What recurring detection reads, in one statement: the user's rows of recurring_payees (per payee key,
 * lower(payee), its newest RECURRING_LATEST transactions as one JSON array, kept by triggers on
 * transactions: migration 20261125170000, docs/decisions.md#recurring-summary) and the user's active
 * bill reminders (what may cover a recurring charge). So a call reads one row per payee and one per
 * reminder, whatever the length of the history, and is right after every write in the same transaction.
 */
import type { Knex } from "knex";
import { rawRows } from "../../db/dialect.js";

/**
 * Enough to judge twelve intervals; older charges say nothing more about whether one still recurs. The
 * triggers keep this many (RECURRING_LATEST of the migration, which is frozen; a change is a new migration).
 */
export const LATEST_PER_PAYEE = 13;
/** A person with more payees than this has the ones after it (payee keys in order) ignored. */
export const MAX_PAYEE_KEYS = 5000;

/** The person's decision on a series (decisions.ts says what each does). */
export type Decision = "confirmed" | "dismissed" | "corrected";

export interface SeriesDecision {
  key: string;
  decision: Decision;
  payee: string | null;
  amountMinMinor: bigint | null;
  amountMaxMinor: bigint | null;
  dayFrom: number | null;
  dayTo: number | null;
}

export interface Charge {
  payee: string;
  date: string;
  amountMinor: bigint;
  currency: string;
  direction: string;
  walletId: string;
}

/**
 * An active bill reminder, as far as covering a recurring charge, pricing it (a reminder newer than the
 * last charge sets its price) and planning it (a reminder with no charge yet) need it.
 */
export interface CoveringBill {
  id: string;
  name: string;
  payee: string | null;
  currency: string;
  /** The fixed amount; null for a variable bill (amount_min to amount_max). */
  amountMinor: bigint | null;
  amountMinMinor: bigint | null;
  amountMaxMinor: bigint | null;
  walletId: string | null;
  rrule: string;
  startDate: string;
  /** The schedule's frequency and interval (of its stored JSON). */
  frequency: string;
  interval: number;
  /** The day the reminder was last written (its updated_at's date). */
  updatedDay: string;
  /** Its category: what it is for (rent, utilities…), read by series.ts to tell a bill from a subscription. */
  category: string | null;
}

/**
 * Bindings: user, MAX_PAYEE_KEYS, user, true, user. A row is a payee ('p': key, its JSON array), an active
 * bill reminder ('b': id, payee, name, currency…, category) or one of the person's decisions ('d': series key,
 * decision, payee, amount range, day window; decisions.ts).
 */
export const RECURRING_INPUTS_SQL = `SELECT 'p' AS kind, p.payee_key AS a, p.latest AS b, NULL AS c, NULL AS d,
         NULL AS e, NULL AS f, NULL AS g, NULL AS h, NULL AS i, NULL AS j, NULL AS k, NULL AS l, NULL AS m
    FROM (SELECT payee_key, latest FROM recurring_payees WHERE user_id = ? ORDER BY payee_key LIMIT ?) AS p
  UNION ALL
  SELECT 'b', id, payee, name, currency, CAST(amount_minor AS TEXT), CAST(amount_min_minor AS TEXT), CAST(amount_max_minor AS TEXT),
         wallet_id, rrule, start_date, schedule, updated_at, category
    FROM bill_reminders WHERE user_id = ? AND active = ?
  UNION ALL
  SELECT 'd', series_key, decision, payee, CAST(amount_min_minor AS TEXT), CAST(amount_max_minor AS TEXT), CAST(day_from AS TEXT),
         CAST(day_to AS TEXT), NULL, NULL, NULL, NULL, NULL, NULL
    FROM recurring_decisions WHERE user_id = ?`;

/**
 * The forecast's reads beside the recurring ones, in the same statement (docs/performance.md, "The
 * forecast in two statements"): the user's wallets' names ('n': id, name) and the rows dated in the
 * forecast's days ('t': wallet, payee, date, amount, currency, direction, id; transfers too, each leg a
 * row of its own wallet), over transactions' (user_id, date) index. Bindings: RECURRING_INPUTS_SQL's,
 * then user, user, first day, last day.
 */
export const FORECAST_INPUTS_SQL = `${RECURRING_INPUTS_SQL}
  UNION ALL
  SELECT 'n', id, name, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM wallets WHERE user_id = ?
  UNION ALL
  SELECT 't', wallet_id, payee, CAST(date AS TEXT), CAST(amount_minor AS TEXT), currency, direction, id, NULL, NULL, NULL, NULL, NULL, NULL
    FROM transactions WHERE user_id = ? AND date >= ? AND date <= ?`;

/** A row dated after today, as the forecast reads it. */
export interface DatedRow {
  date: string;
  walletId: string;
  payee: string | null;
  /** Signed: an expense is negative. */
  amountMinor: bigint;
  currency: string;
  direction: string;
}

const minorOrNull = (v: string | null | undefined) => (v === null || v === undefined ? null : BigInt(String(v)));

function billOf(r: Record<string, string | null>): CoveringBill {
  const schedule = JSON.parse(String(r.k)) as { frequency: string; interval?: number };
  return {
    id: String(r.a),
    payee: r.b === null ? null : String(r.b),
    name: String(r.c),
    currency: String(r.d),
    amountMinor: minorOrNull(r.e),
    amountMinMinor: minorOrNull(r.f),
    amountMaxMinor: minorOrNull(r.g),
    walletId: r.h === null ? null : String(r.h),
    rrule: String(r.i),
    startDate: String(r.j),
    frequency: schedule.frequency,
    interval: schedule.interval ?? 1,
    updatedDay: String(r.l).slice(0, 10),
    category: r.m === null || r.m === undefined ? null : String(r.m),
  };
}

const byCodeUnits = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

/**
 * The newest LATEST_PER_PAYEE expenses and incomes of every payee of the user (transfers are not
 * charges; payee keys in code-unit order, each payee's rows newest first), and the active bill
 * reminders in list_bill_reminders' order (name folded, then id).
 */
export async function recurringInputs(db: Knex, userId: string): Promise<{ charges: Charge[]; bills: CoveringBill[]; decisions: SeriesDecision[] }> {
  const result: unknown = await db.raw(RECURRING_INPUTS_SQL, [userId, MAX_PAYEE_KEYS, userId, true, userId]);
  return inputsOf(result);
}

/** recurringInputs, and the wallets' names and the rows dated from `first` through `last` (by date, then id), in one statement. */
export async function forecastInputs(
  db: Knex,
  userId: string,
  first: string,
  last: string,
): Promise<{ charges: Charge[]; bills: CoveringBill[]; decisions: SeriesDecision[]; names: Map<string, string>; rows: DatedRow[] }> {
  const result: unknown = await db.raw(FORECAST_INPUTS_SQL, [userId, MAX_PAYEE_KEYS, userId, true, userId, userId, userId, first, last]);
  return inputsOf(result);
}

function inputsOf(result: unknown) {
  const rows = rawRows(result) as {
    kind: string;
    a: string;
    b: string | null;
    c: string | null;
    d: string | null;
    [column: string]: string | null;
  }[];
  const payees: { key: string; latest: string }[] = [];
  const bills: CoveringBill[] = [];
  const decisions: SeriesDecision[] = [];
  const names = new Map<string, string>();
  const dated: (DatedRow & { id: string })[] = [];
  const dayOrNull = (v: string | null | undefined) => (v === null || v === undefined ? null : Number(v));
  for (const r of rows) {
    if (r.kind === "p") payees.push({ key: String(r.a), latest: String(r.b) });
    else if (r.kind === "b") bills.push(billOf(r));
    else if (r.kind === "n") names.set(String(r.a), String(r.b));
    else if (r.kind === "t")
      dated.push({
        walletId: String(r.a),
        payee: r.b === null ? null : String(r.b),
        date: String(r.c),
        amountMinor: BigInt(String(r.d)),
        currency: String(r.e),
        direction: String(r.f),
        id: String(r.g),
      });
    else
      decisions.push({
        key: String(r.a),
        decision: String(r.b) as Decision,
        payee: r.c === null ? null : String(r.c),
        amountMinMinor: minorOrNull(r.d),
        amountMaxMinor: minorOrNull(r.e),
        dayFrom: dayOrNull(r.f),
        dayTo: dayOrNull(r.g),
      });
  }
  payees.sort((x, y) => byCodeUnits(x.key, y.key));
  bills.sort((x, y) => x.name.toLowerCase().localeCompare(y.name.toLowerCase()) || byCodeUnits(x.id, y.id));
  dated.sort((x, y) => byCodeUnits(x.date, y.date) || byCodeUnits(x.id, y.id));
  const charges: Charge[] = [];
  for (const p of payees) {
    for (const [payee, date, amount, currency, direction, walletId] of JSON.parse(p.latest) as string[][]) {
      if (direction !== "expense" && direction !== "income") continue;
      charges.push({ payee: payee!, date: date!, amountMinor: BigInt(amount!), currency: currency!, direction, walletId: walletId! });
    }
  }
  return { charges, bills, decisions, names, rows: dated.map(({ id: _id, ...row }) => row) };
}
