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

export function projectForecast(inputs: ForecastInputs, o: ForecastOptions) {
  const { home, rates, wallets } = inputs;
  const first = plusDays(o.today, 1);
  const last = plusDays(o.today, o.days);
  const points = o.days + 1;
  const start = toEpochDay(o.today);
  const cancelled = new Set(o.cancel.map(payeeKey));

  const events: ForecastEvent[] = [];
  for (const r of inputs.rows) {
    events.push({
      date: r.date,
      label: r.payee ?? r.direction,
      amountMinor: r.amountMinor,
      currency: r.currency,
      walletId: r.walletId,
      source: "transaction",
      income: r.direction === "income",
      transfer: r.direction === "transfer",
    });
  }
  // A future-dated row of the same payee within DUE_WINDOW days of an expected charge is that charge,
  // already typed in (a reminder's due date is not moved by it): the charge is not counted twice.
  const booked = new Map<string, number[]>();
  for (const r of inputs.rows) {
    if (r.payee === null) continue;
    const k = `${payeeKey(r.payee)}\u0000${r.direction}`;
    booked.set(k, [...(booked.get(k) ?? []), toEpochDay(r.date)]);
  }
  const alreadyBooked = (folded: string, direction: string, date: string) =>
    (booked.get(`${folded}\u0000${direction}`) ?? []).some((d) => Math.abs(d - toEpochDay(date)) <= DUE_WINDOW);
  const settlements = cardSettlements(wallets, inputs.bills);
  const settling = new Set(settlements.map((x) => x.bill.id));
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
    for (const date of seriesDates(s, first, last)) {
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
    for (const date of occurrencesBetween(b.rrule, b.startDate, first, last, 10_000)) {
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

  // Into home currency at today's rate (the newest on or before today, else the earliest after).
  const missing = new Set<string>();
  const toHome = (minor: bigint, currency: string): bigint | null => {
    if (currency === home) return minor;
    const rate = rateFor(rates, currency, home, o.today);
    if (!rate) {
      missing.add(currency);
      return null;
    }
    return convertMinor(minor, currency, home, rate);
  };

  const walletIndex = new Map(wallets.map((w, i) => [w.id, i]));
  const perWallet = wallets.map((w) => ({ w, deltas: new Array<bigint>(points).fill(0n) }));
  const inRange: ForecastEvent[] = [];
  const place = (e: ForecastEvent) => {
    const i = toEpochDay(e.date) - start;
    if (i < 1 || i > o.days) return;
    inRange.push(e);
    const wi = e.walletId === null ? undefined : walletIndex.get(e.walletId);
    if (wi !== undefined && wallets[wi]!.currency === e.currency) perWallet[wi]!.deltas[i]! += e.amountMinor;
  };
  for (const e of events) place(e);
  // Card settlements by due day: what the card owes at the end of the day before (its own charges, and
  // earlier settlements, already placed) moves from the paying wallet to the card.
  const dues = settlements
    .flatMap((x) => occurrencesBetween(x.bill.rrule, x.bill.startDate, first, last, 10_000).map((date) => ({ ...x, date })))
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  for (const due of dues) {
    const deltas = perWallet[walletIndex.get(due.card.id)!]!.deltas;
    let owed = due.card.balanceMinor;
    for (let i = 1; i < toEpochDay(due.date) - start; i++) owed += deltas[i]!;
    if (owed >= 0n) continue;
    const leg = { date: due.date, label: due.bill.name, currency: due.card.currency, source: "bill_reminder" as const, income: false, transfer: true };
    place({ ...leg, amountMinor: owed, walletId: due.payerId, otherWalletId: due.card.id });
    place({ ...leg, amountMinor: -owed, walletId: due.card.id, otherWalletId: due.payerId });
  }
  inRange.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : bySignedAmount(a, b)));

  // The wallets the answer is about, and the events that move their total: a what-if without a wallet counts too.
  const chosen = o.walletIds ? new Set(o.walletIds) : null;
  const inScope = (e: ForecastEvent) => chosen === null || (e.walletId === null ? e.source === "what_if" : chosen.has(e.walletId));
  const scoped = inRange.filter(inScope);
  const totalDeltas = new Array<bigint>(points).fill(0n);
  for (const e of scoped) {
    const inHome = toHome(e.amountMinor, e.currency);
    if (inHome !== null) totalDeltas[toEpochDay(e.date) - start]! += inHome;
  }

  const cumulate = (startMinor: bigint, deltas: bigint[]) => {
    let running = startMinor;
    return deltas.map((d) => (running += d));
  };
  const lowestOf = (series: bigint[]) => {
    let at = 0;
    series.forEach((v, i) => {
      if (v < series[at]!) at = i;
    });
    return at;
  };

  const shown = perWallet.filter(({ w }) => chosen === null || chosen.has(w.id));
  let startTotal = 0n;
  for (const { w } of shown) startTotal += toHome(w.balanceMinor, w.currency) ?? 0n;
  const total = cumulate(startTotal, totalDeltas);
  const walletSeries = shown.map(({ w, deltas }) => cumulate(w.balanceMinor, deltas));
  const dayOf = (i: number) => plusDays(o.today, i);
  const lowAt = lowestOf(total);

  const nextIncome = scoped.find((e) => e.income && e.date > o.today) ?? null;
  const untilIndex = nextIncome ? toEpochDay(nextIncome.date) - start - 1 : o.days;
  const lowUntilIncome = lowestOf(total.slice(0, untilIndex + 1));
  const safe = total[lowUntilIncome]! - o.bufferMinor;

  // The events behind the low point: the outflows since the last income before it, largest first (a
  // settlement whose card is among the wallets moves nothing of their total).
  const lowDay = dayOf(lowAt);
  const lastIncome = [...scoped].reverse().find((e) => e.income && e.date <= lowDay)?.date ?? o.today;
  const behind = scoped
    .filter((e) => !(e.otherWalletId !== undefined && (chosen === null || chosen.has(e.otherWalletId))))
    .filter((e) => e.amountMinor < 0n && e.date >= lastIncome && e.date <= lowDay)
    .sort(bySignedAmount)
    .slice(0, LOW_POINT_EVENTS)
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : bySignedAmount(a, b)));

  const months: { month: string; income: Money; expense: Money; end_balance: Money }[] = [];
  let month = "";
  let income = 0n;
  let expense = 0n;
  const flush = (endIndex: number) => {
    if (month) months.push({ month, income: toMoney(income, home), expense: toMoney(expense, home), end_balance: toMoney(total[endIndex]!, home) });
  };
  // The months the days fall in, month by month (not day by day): index 0 opens the first.
  month = o.today.slice(0, 7);
  for (let first = monthStart(o.today, 1); first <= last; first = monthStart(first, 1)) {
    flush(toEpochDay(first) - start - 1);
    month = first.slice(0, 7);
    income = 0n;
    expense = 0n;
  }
  flush(o.days);
  for (const e of scoped) {
    const inHome = toHome(e.amountMinor, e.currency);
    if (inHome === null || e.transfer) continue;
    const row = months.find((r) => r.month === e.date.slice(0, 7));
    if (!row) continue;
    if (inHome >= 0n) row.income = toMoney(BigInt(row.income.minor) + inHome, home);
    else row.expense = toMoney(BigInt(row.expense.minor) - inHome, home);
  }

  const event = (e: ForecastEvent) => ({ date: e.date, label: e.label, amount: toMoney(e.amountMinor, e.currency), wallet_id: e.walletId, source: e.source });
  return {
    as_of: o.today,
    until: last,
    currency: home,
    balance: toMoney(startTotal, home),
    lowest: { date: lowDay, balance: toMoney(total[lowAt]!, home) },
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
    low_point_events: behind.map(event),
    missing_rates: [...missing].sort(),
    // Formatted straight from the exact balance (toMoney's value, without its object): 366 points a wallet.
    daily: {
      total: total.map((v) => formatMinor(v, home)),
      wallets: walletSeries.map((s, wi) => s.map((v) => formatMinor(v, shown[wi]!.w.currency))),
    },
  };
}
