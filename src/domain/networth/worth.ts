/**
 * Net worth as of a day, or a series of days (weekly or monthly) and the change between the first and
 * the last (docs/decisions.md#net-worth):
 *   - the wallets that count: not archived and in_net_worth (a wallet setting, update_wallet);
 *   - on each day, only the wallets that existed then: from their opening date, or (without one) from the
 *     earlier of their creation day and their first transaction;
 *   - assets: the other wallets' balances; liabilities: credit cards and loans, counted negative
 *     whichever sign their balance was entered with;
 *   - per currency always; converted into the home currency (the user's default currency) only when a
 *     rate the person gave exists for every currency on that day; otherwise the missing pairs are named.
 * Everything is read in one statement (readNetWorthInputs, ./ledger.ts): every day's balances from one
 * pass over the monthly totals plus at most half a month of rows per day, as ledgerSums splits them.
 */
import type { DomainContext } from "../../context.js";
import { plusDays, plusMonthsClamped } from "../../calendar/days.js";
import { todayOf } from "../../calendar/time-zones.js";
import type { Knex } from "knex";
import { invalidParams } from "../../errors.js";
import { toMoney, type Money } from "../../money/amount.js";
import { openingOn } from "../wallets/store.js";
import { readNetWorthInputs, type NetWorthInputs } from "./ledger.js";
import { convertMinor, rateFor, type UsedRate } from "./rates.js";

/** A series has at most this many days (a weekly series over a year and a bit, a monthly one over five years). */
export const MAX_POINTS = 60;
const LIABILITY_TYPES = new Set(["credit_card", "loan"]);

export interface NetWorthPoint {
  date: string;
  by_currency: { currency: string; assets: Money; liabilities: Money; net: Money }[];
  home_net: Money | null;
}

export interface NetWorth {
  home_currency: string;
  points: NetWorthPoint[];
  change: { from: string; to: string; by_currency: Money[]; home_net: Money | null } | null;
  rates_used: { base: string; quote: string; rate: string; date: string }[];
  missing_rates: string[];
}

/** The days of the series: from, every step after it, and to. */
export function seriesDays(from: string, to: string, step: "week" | "month"): string[] {
  if (from > to) throw invalidParams("from", `a date on or before ${to}`, `from: ${from} is after the last day ${to}`);
  const days: string[] = [];
  const anchor = Number(from.slice(8, 10));
  for (let i = 0; ; i++) {
    const d = step === "week" ? plusDays(from, 7 * i) : plusMonthsClamped(from, i, anchor);
    if (d >= to) break;
    days.push(d);
    if (days.length >= MAX_POINTS)
      throw invalidParams(
        "step",
        `at most ${MAX_POINTS} points`,
        `step: from ${from} to ${to} by ${step} is more than ${MAX_POINTS} points; use month or a later from`,
      );
  }
  days.push(to);
  return days;
}

/** get_net_worth: one point at to (default the caller's today), or a series from from. */
export async function netWorthOf(ctx: DomainContext, params: { from?: string; to?: string; step?: "week" | "month" }): Promise<NetWorth> {
  const to = params.to ?? todayOf(ctx);
  const days = params.from === undefined ? [to] : seriesDays(params.from, to, params.step ?? "month");
  return netWorth(ctx.db, ctx.caller.userId, days);
}

export async function netWorth(db: Knex, userId: string, days: string[]): Promise<NetWorth> {
  return netWorthFrom(await readNetWorthInputs(db, userId, days), days);
}

/** The answer from what was read (no query): `inputs.sums[i]` are the totals as of `days[i]`. */
export function netWorthFrom(inputs: NetWorthInputs, days: readonly string[]): NetWorth {
  const { home, wallets, rates, sums: sumsOn } = inputs;
  const used = new Map<string, UsedRate>();
  const missing = new Set<string>();

  const points: NetWorthPoint[] = [];
  const nets: Map<string, bigint>[] = [];
  const homeNets: (bigint | null)[] = [];
  for (const [i, day] of days.entries()) {
    const existing = wallets.filter((w) => w.first_day <= day);
    const sums = sumsOn[i]!;
    const per = new Map<string, { assets: bigint; liabilities: bigint }>();
    for (const w of existing) {
      const balance = openingOn(w, day) + (sums.get(w.id) ?? 0n);
      const t = per.get(w.currency) ?? { assets: 0n, liabilities: 0n };
      if (LIABILITY_TYPES.has(w.type)) t.liabilities -= balance < 0n ? -balance : balance;
      else t.assets += balance;
      per.set(w.currency, t);
    }
    const currencies = [...per.keys()].sort();
    let homeNet: bigint | null = 0n;
    for (const c of currencies) {
      const net = per.get(c)!.assets + per.get(c)!.liabilities;
      if (c === home) {
        if (homeNet !== null) homeNet += net;
        continue;
      }
      const rate = rateFor(rates, c, home, day);
      if (!rate) {
        missing.add(`${c}→${home}`);
        homeNet = null;
        continue;
      }
      used.set(`${c} ${rate.date}`, rate);
      if (homeNet !== null) homeNet += convertMinor(net, c, home, rate);
    }
    nets.push(new Map(currencies.map((c) => [c, per.get(c)!.assets + per.get(c)!.liabilities])));
    homeNets.push(homeNet);
    points.push({
      date: day,
      by_currency: currencies.map((c) => {
        const t = per.get(c)!;
        return { currency: c, assets: toMoney(t.assets, c), liabilities: toMoney(t.liabilities, c), net: toMoney(t.assets + t.liabilities, c) };
      }),
      home_net: homeNet === null ? null : toMoney(homeNet, home),
    });
  }

  let change: NetWorth["change"] = null;
  if (points.length > 1) {
    const a = nets[0]!;
    const b = nets[nets.length - 1]!;
    const currencies = [...new Set([...a.keys(), ...b.keys()])].sort();
    const h0 = homeNets[0]!;
    const h1 = homeNets[homeNets.length - 1]!;
    change = {
      from: days[0]!,
      to: days[days.length - 1]!,
      by_currency: currencies.map((c) => toMoney((b.get(c) ?? 0n) - (a.get(c) ?? 0n), c)),
      home_net: h0 === null || h1 === null ? null : toMoney(h1 - h0, home),
    };
  }
  return {
    home_currency: home,
    points,
    change,
    rates_used: [...used.values()]
      .sort((x, y) => (x.currency === y.currency ? (x.date < y.date ? -1 : 1) : x.currency < y.currency ? -1 : 1))
      .map((r) => (r.inverse ? { base: home, quote: r.currency, rate: r.rate, date: r.date } : { base: r.currency, quote: home, rate: r.rate, date: r.date })),
    missing_rates: [...missing].sort(),
  };
}
