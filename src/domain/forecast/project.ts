/**
 * The cash-flow forecast from what was read (no query; docs/decisions.md#cash-flow-forecast): each
 * wallet's balance at the end of today and of each of the `days` days after it (today's rows are in
 * today's balance; events start tomorrow, as list_recurring's 12-month cost counts them), and their total in the home
 * currency at the person's own rates (rateFor: as net worth converts).
 *
 * Events: future-dated rows; the regular payments' expected charges (seriesDates: the same dates
 * list_recurring's 12-month cost counts) except regular spending unless asked (then at its typical
 * amount); active bill reminders no series stands for (an unusual schedule), at their fixed or highest
 * amount; what-if events. A series or reminder without a counted wallet moves the total only.
 *
 * Safe to spend: the lowest total from today up to the day before the next income (or the horizon's end
 * when none comes), minus the buffer: what can go today without the total dropping below the buffer
 * before the money comes in. With wallet_ids the total, its low points, the next income and safe to
 * spend are those of the wallets named (a what-if without a wallet counts against them).
 *
 * A credit card is settled (cardSettlements): an active bill reminder named after a credit_card wallet
 * and paid from another wallet of its currency moves, on each of its due days, what the card owes at the
 * end of the day before from the paying wallet to the card (a transfer: the total of both is unchanged);
 * the reminder is then not an expense of its own (docs/decisions.md#issue-49-choices).
 */
import { monthStart, plusDays, toEpochDay } from "../../calendar/days.js";
import { formatMinor, type Money, toMoney } from "../../money/amount.js";
import { convertMinor, rateFor } from "../networth/rates.js";
import { occurrencesBetween } from "../bills/schedule.js";
import { payeeKey } from "../recurring/detect.js";
import { seriesDates } from "../recurring/series.js";
import type { CoveringBill } from "../recurring/store.js";
import type { ForecastInputs, ForecastWallet } from "./inputs.js";

export interface WhatIf {
  date: string;
  /** Signed, in `currency`. */
  amountMinor: bigint;
  currency: string;
  walletId: string | null;
  label: string;
}

export interface ForecastOptions {
  today: string;
  days: number;
  bufferMinor: bigint;
  includeRegularSpending: boolean;
  whatIf: WhatIf[];
  /** Payees whose regular payments the person means to cancel (folded as list_recurring folds them). */
  cancel: string[];
  /** The wallets the answer is about (checked counted wallets), or null for all of them. */
  walletIds?: string[] | null;
}

export type EventSource = "transaction" | "regular_payment" | "bill_reminder" | "what_if";

interface ForecastEvent {
  date: string;
  label: string;
  amountMinor: bigint;
  currency: string;
  walletId: string | null;
  source: EventSource;
  income: boolean;
  /** A transfer leg: it moves money between wallets, so a month's income and expense leave it out. */
  transfer?: boolean;
  /** A card settlement's other wallet: a leg whose other side is in the answer's wallets moves nothing of their total. */
  otherWalletId?: string;
}

/** Lower case, letters and digits only, words single-spaced: names compared as a person reads them. */
const words = (s: string) =>
  ` ${s
    .normalize("NFC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim()} `;

/** A reminder that pays off a credit card: the card, the paying wallet and the reminder. */
interface Settlement {
  card: ForecastWallet;
  payerId: string;
  bill: CoveringBill;
}

/**
 * The active reminders that settle a credit card: named (name or payee) after a credit_card wallet, whole
 * words, the longest card name winning, and paid from another counted wallet in the card's currency.
 */
function cardSettlements(wallets: readonly ForecastWallet[], bills: readonly CoveringBill[]): Settlement[] {
  const cards = wallets.filter((w) => w.type === "credit_card" && words(w.name).trim() !== "").sort((a, b) => b.name.length - a.name.length);
  const out: Settlement[] = [];
  for (const bill of bills) {
    const named = [bill.name, bill.payee ?? ""].map(words);
    const card = cards.find((c) => named.some((n) => n.includes(words(c.name))));
    const payer = wallets.find((w) => w.id === bill.walletId);
    if (card && payer && payer.id !== card.id && payer.currency === card.currency && bill.currency === card.currency)
      out.push({ card, payerId: payer.id, bill });
  }
  return out;
}

/** Days either side of an expected charge within which a future-dated row of its payee stands for it. */
const DUE_WINDOW = 3;

/** The most events listed behind the low point. */
const LOW_POINT_EVENTS = 8;

function bySignedAmount(a: ForecastEvent, b: ForecastEvent): number {
  return a.amountMinor < b.amountMinor ? -1 : a.amountMinor > b.amountMinor ? 1 : a.date < b.date ? -1 : a.date > b.date ? 1 : 0;
}

/** The forecast's days: index 0 is today (its balance), 1 the first day with events, `days` the horizon's end. */
interface Span {
  today: string;
  days: number;
  /** Tomorrow: events start here. */
  first: string;
  /** The horizon's last day. */
  last: string;
  /** Today as a day number, so an event's index is its day number minus this. */
  start: number;
}

const byDate = (a: ForecastEvent, b: ForecastEvent) => (a.date < b.date ? -1 : a.date > b.date ? 1 : bySignedAmount(a, b));

/**
 * Whether a future-dated row of the same payee and direction lies within DUE_WINDOW days of an expected
 * charge: that row is the charge, already typed in (a reminder's due date is not moved by it), so the
 * charge is not counted twice.
 */
function bookedCharges(rows: ForecastInputs["rows"]): (folded: string, direction: string, date: string) => boolean {
  const booked = new Map<string, number[]>();
  for (const r of rows) {
    if (r.payee === null) continue;
    const k = `${payeeKey(r.payee)}\u0000${r.direction}`;
    booked.set(k, [...(booked.get(k) ?? []), toEpochDay(r.date)]);
  }
  return (folded, direction, date) => (booked.get(`${folded}\u0000${direction}`) ?? []).some((d) => Math.abs(d - toEpochDay(date)) <= DUE_WINDOW);
}

/**
 * Every event of the horizon but the card settlements (which depend on the balances these make), in the
 * order they are placed: future-dated rows, the regular payments' expected charges, the reminders no series
 * stands for, the what-ifs. `settling` holds the reminders that settle a card.
 */
function forecastEvents(inputs: ForecastInputs, o: ForecastOptions, span: Span, settling: ReadonlySet<string>): ForecastEvent[] {
  const cancelled = new Set(o.cancel.map(payeeKey));
  const alreadyBooked = bookedCharges(inputs.rows);
  const events: ForecastEvent[] = inputs.rows.map((r) => ({
    date: r.date,
    label: r.payee ?? r.direction,
    amountMinor: r.amountMinor,
    currency: r.currency,
    walletId: r.walletId,
    source: "transaction" as const,
    income: r.direction === "income",
    transfer: r.direction === "transfer",
  }));
  // A reminder some series stands for (even one not forecast below) is not forecast on its own.
  const represented = new Set<string>(settling);
  for (const s of inputs.series) {
    if (s.bill) represented.add(s.bill.id);
    // A card's payments, when a reminder settles the card: the settlement stands for them.
    if (s.bill && settling.has(s.bill.id)) continue;
    // Dismissed by the person: neither the series nor its reminder is forecast (docs/decisions.md#recurring-decisions).
    if (s.decision === "dismissed") continue;
    if (s.kind === "regular_spending" && !o.includeRegularSpending) continue;
    if (cancelled.has(s.key)) continue;
    const amount = s.kind === "regular_spending" ? s.typicalMinor : s.priceMinor;
    const signed = s.direction === "income" ? amount : -amount;
    for (const date of seriesDates(s, span.first, span.last)) {
      if (alreadyBooked(s.key, s.direction, date)) continue;
      events.push({
        date,
        label: s.payee,
        amountMinor: signed,
        currency: s.currency,
        walletId: s.walletId,
        source: "regular_payment",
        income: s.direction === "income",
      });
    }
  }
  for (const b of inputs.bills) {
    if (represented.has(b.id) || cancelled.has(payeeKey(b.payee ?? b.name))) continue;
    const amount = b.amountMinor ?? b.amountMaxMinor ?? 0n;
    for (const date of occurrencesBetween(b.rrule, b.startDate, span.first, span.last, 10_000)) {
      if (alreadyBooked(payeeKey(b.payee ?? b.name), "expense", date)) continue;
      events.push({ date, label: b.name, amountMinor: -amount, currency: b.currency, walletId: b.walletId, source: "bill_reminder", income: false });
    }
  }
  for (const w of o.whatIf) {
    events.push({
      date: w.date,
      label: w.label,
      amountMinor: w.amountMinor,
      currency: w.currency,
      walletId: w.walletId,
      source: "what_if",
      income: w.amountMinor > 0n,
    });
  }
  return events;
}

/**
 * The events within the horizon, by date, and each wallet's change per day from those in its currency.
 * The card settlements are placed last, due day by due day: each needs what the card owes at the end of
 * the day before (its own charges, and earlier settlements, already placed), and moves it from the paying
 * wallet to the card.
 */
function placeEvents(wallets: readonly ForecastWallet[], events: readonly ForecastEvent[], settlements: readonly Settlement[], span: Span) {
  const walletIndex = new Map(wallets.map((w, i) => [w.id, i]));
  const perWallet = wallets.map((w) => ({ w, deltas: new Array<bigint>(span.days + 1).fill(0n) }));
  const inRange: ForecastEvent[] = [];
  const place = (e: ForecastEvent) => {
    const i = toEpochDay(e.date) - span.start;
    if (i < 1 || i > span.days) return;
    inRange.push(e);
    const wi = e.walletId === null ? undefined : walletIndex.get(e.walletId);
    if (wi !== undefined && wallets[wi]!.currency === e.currency) perWallet[wi]!.deltas[i]! += e.amountMinor;
  };
  for (const e of events) place(e);
  const dues = settlements
    .flatMap((x) => occurrencesBetween(x.bill.rrule, x.bill.startDate, span.first, span.last, 10_000).map((date) => ({ ...x, date })))
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  for (const due of dues) {
    const deltas = perWallet[walletIndex.get(due.card.id)!]!.deltas;
    let owed = due.card.balanceMinor;
    for (let i = 1; i < toEpochDay(due.date) - span.start; i++) owed += deltas[i]!;
    if (owed >= 0n) continue;
    const leg = { date: due.date, label: due.bill.name, currency: due.card.currency, source: "bill_reminder" as const, income: false, transfer: true };
    place({ ...leg, amountMinor: owed, walletId: due.payerId, otherWalletId: due.card.id });
    place({ ...leg, amountMinor: -owed, walletId: due.card.id, otherWalletId: due.payerId });
  }
  inRange.sort(byDate);
  return { perWallet, inRange };
}

/**
 * Money into the home currency at today's rate (the newest on or before today, else the earliest after),
 * or null without a rate; `missing` collects the currencies that had none, for the answer's missing_rates.
 */
function homeConverter(inputs: ForecastInputs, today: string) {
  const { home, rates } = inputs;
  const missing = new Set<string>();
  const toHome = (minor: bigint, currency: string): bigint | null => {
    if (currency === home) return minor;
    const rate = rateFor(rates, currency, home, today);
    if (!rate) {
      missing.add(currency);
      return null;
    }
    return convertMinor(minor, currency, home, rate);
  };
  return { toHome, missing };
}

/** A running balance from its start and each day's change. */
function cumulate(startMinor: bigint, deltas: readonly bigint[]): bigint[] {
  let running = startMinor;
  return deltas.map((d) => (running += d));
}

/** The index of a series' lowest value (the first of equals). */
function lowestOf(series: readonly bigint[]): number {
  let at = 0;
  series.forEach((v, i) => {
    if (v < series[at]!) at = i;
  });
  return at;
}

/**
 * The events behind the low point: the outflows since the last income before it, largest first, then
 * by date. A settlement whose card is among the answer's wallets moves nothing of their total, so it is left out.
 */
function lowPointEvents(scoped: readonly ForecastEvent[], chosen: ReadonlySet<string> | null, lowDay: string, today: string): ForecastEvent[] {
  const lastIncome = [...scoped].reverse().find((e) => e.income && e.date <= lowDay)?.date ?? today;
  return scoped
    .filter((e) => !(e.otherWalletId !== undefined && (chosen === null || chosen.has(e.otherWalletId))))
    .filter((e) => e.amountMinor < 0n && e.date >= lastIncome && e.date <= lowDay)
    .sort(bySignedAmount)
    .slice(0, LOW_POINT_EVENTS)
    .sort(byDate);
}

/**
 * Each calendar month the days touch: its income and expense in the home currency (transfers move money
 * between wallets, so they are neither) and the total at its last day within the horizon.
 */
function monthsOf(
  scoped: readonly ForecastEvent[],
  total: readonly bigint[],
  span: Span,
  home: string,
  toHome: (minor: bigint, currency: string) => bigint | null,
) {
  const months: { month: string; income: Money; expense: Money; end_balance: Money }[] = [];
  const open = (month: string, endIndex: number) =>
    months.push({ month, income: toMoney(0n, home), expense: toMoney(0n, home), end_balance: toMoney(total[endIndex]!, home) });
  // Month by month (not day by day): index 0 opens the first; each month ends the day before the next one's first.
  let month = span.today.slice(0, 7);
  for (let first = monthStart(span.today, 1); first <= span.last; first = monthStart(first, 1)) {
    open(month, toEpochDay(first) - span.start - 1);
    month = first.slice(0, 7);
  }
  open(month, span.days);
  for (const e of scoped) {
    const inHome = toHome(e.amountMinor, e.currency);
    if (inHome === null || e.transfer) continue;
    const row = months.find((r) => r.month === e.date.slice(0, 7));
    if (!row) continue;
    if (inHome >= 0n) row.income = toMoney(BigInt(row.income.minor) + inHome, home);
    else row.expense = toMoney(BigInt(row.expense.minor) - inHome, home);
  }
  return months;
}

export function projectForecast(inputs: ForecastInputs, o: ForecastOptions) {
  const { home, wallets } = inputs;
  const span: Span = { today: o.today, days: o.days, first: plusDays(o.today, 1), last: plusDays(o.today, o.days), start: toEpochDay(o.today) };
  const settlements = cardSettlements(wallets, inputs.bills);
  const events = forecastEvents(inputs, o, span, new Set(settlements.map((x) => x.bill.id)));
  const { perWallet, inRange } = placeEvents(wallets, events, settlements, span);
  const { toHome, missing } = homeConverter(inputs, o.today);

  // The wallets the answer is about, and the events that move their total: a what-if without a wallet counts too.
  const chosen = o.walletIds ? new Set(o.walletIds) : null;
  const inScope = (e: ForecastEvent) => chosen === null || (e.walletId === null ? e.source === "what_if" : chosen.has(e.walletId));
  const scoped = inRange.filter(inScope);
  const totalDeltas = new Array<bigint>(o.days + 1).fill(0n);
  for (const e of scoped) {
    const inHome = toHome(e.amountMinor, e.currency);
    if (inHome !== null) totalDeltas[toEpochDay(e.date) - span.start]! += inHome;
  }
  const shown = perWallet.filter(({ w }) => chosen === null || chosen.has(w.id));
  let startTotal = 0n;
  for (const { w } of shown) startTotal += toHome(w.balanceMinor, w.currency) ?? 0n;
  const total = cumulate(startTotal, totalDeltas);
  const walletSeries = shown.map(({ w, deltas }) => cumulate(w.balanceMinor, deltas));
  const dayOf = (i: number) => plusDays(o.today, i);
  const lowAt = lowestOf(total);

  // Safe to spend: the lowest total before the next income (or through the horizon), less the buffer.
  const nextIncome = scoped.find((e) => e.income && e.date > o.today) ?? null;
  const untilIndex = nextIncome ? toEpochDay(nextIncome.date) - span.start - 1 : o.days;
  const lowUntilIncome = lowestOf(total.slice(0, untilIndex + 1));
  const safe = total[lowUntilIncome]! - o.bufferMinor;
  const months = monthsOf(scoped, total, span, home, toHome);

  const event = (e: ForecastEvent) => ({ date: e.date, label: e.label, amount: toMoney(e.amountMinor, e.currency), wallet_id: e.walletId, source: e.source });
  return {
    as_of: o.today,
    until: span.last,
    currency: home,
    balance: toMoney(startTotal, home),
    lowest: { date: dayOf(lowAt), balance: toMoney(total[lowAt]!, home) },
    lowest_until_income: { date: dayOf(lowUntilIncome), balance: toMoney(total[lowUntilIncome]!, home) },
    next_income: nextIncome ? event(nextIncome) : null,
    safe_to_spend: toMoney(safe, home),
    safe_until: dayOf(untilIndex),
    wallets: shown.map(({ w }, wi) => {
      const s = walletSeries[wi]!;
      const low = lowestOf(s);
      const lowBefore = lowestOf(s.slice(0, untilIndex + 1));
      return {
        wallet_id: w.id,
        name: w.name,
        currency: w.currency,
        balance: toMoney(w.balanceMinor, w.currency),
        lowest: { date: dayOf(low), balance: toMoney(s[low]!, w.currency) },
        lowest_until_income: { date: dayOf(lowBefore), balance: toMoney(s[lowBefore]!, w.currency) },
        end_balance: toMoney(s[o.days]!, w.currency),
      };
    }),
    months,
    low_point_events: lowPointEvents(scoped, chosen, dayOf(lowAt), o.today).map(event),
    missing_rates: [...missing].sort(),
    // Formatted straight from the exact balance (toMoney's value, without its object): 366 points a wallet.
    daily: {
      total: total.map((v) => formatMinor(v, home)),
      wallets: walletSeries.map((s, wi) => s.map((v) => formatMinor(v, shown[wi]!.w.currency))),
    },
  };
}
