/**
 * Exchange rates the person gives (set_exchange_rate): "1 base = rate quote" on a date, one per pair and
 * day whichever way round (a second one for the same day replaces it, so that a day never holds a rate
 * and a different inverse of it). Nothing here fetches a rate: they are typed in.
 * Converting uses exact decimals: the rate is kept as its decimal string and applied with BigInt.
 */
import type { DomainContext } from "../../context.js";
import { invalidParams } from "../../errors.js";
import { currencyExponent } from "../../money/currencies.js";
import { requireKnownCurrency } from "../shared/amounts.js";
/** The caller's today, for the handlers that pass it in (one import per handler: src/domain/README.md). */
import { todayOf } from "../../calendar/time-zones.js";

export interface ExchangeRate {
  id: string;
  base: string;
  quote: string;
  rate: string;
  date: string;
}

const RATE = /^(0|[1-9][0-9]{0,11})(?:\.([0-9]{1,12}))?$/;

function rowToRate(r: Record<string, unknown>): ExchangeRate {
  return { id: String(r.id), base: String(r.base), quote: String(r.quote), rate: String(r.rate), date: String(r.date) };
}

/** A rate's canonical decimal string ("1.0850" → "1.085"), refusing zero and malformed ones. */
export function checkRate(rate: string): string {
  const m = RATE.exec(rate);
  if (!m || /^0(\.0*)?$/.test(rate)) throw invalidParams("rate", 'a positive decimal such as "1.0842"', `rate: not a positive decimal such as "1.0842"`);
  const frac = (m[2] ?? "").replace(/(?<!0)0+$/, "");
  return frac.length > 0 ? `${m[1]}.${frac}` : m[1]!;
}

/** Stores the rate of a pair on a date, replacing one of the same pair and day either way round; answers it before and after. */
export async function setExchangeRate(
  ctx: DomainContext,
  p: { base: string; quote: string; rate: string; date?: string },
): Promise<{ before: ExchangeRate | null; after: ExchangeRate }> {
  const { db } = ctx;
  const { userId } = ctx.caller;
  const clock = { now: ctx.now(), ids: ctx.ids };
  // The date defaults to the user's today.
  const input = { base: p.base, quote: p.quote, rate: p.rate, date: p.date ?? todayOf(ctx) };
  requireKnownCurrency(input.base, "base");
  requireKnownCurrency(input.quote, "quote");
  if (input.base === input.quote) throw invalidParams("quote", "a currency other than base", "quote: a rate converts between two different currencies");
  const rate = checkRate(input.rate);
  const at = clock.now.toISOString();
  const found = await db("exchange_rates")
    .where({ user_id: userId, date: input.date })
    .andWhere((pair) => pair.where({ base: input.base, quote: input.quote }).orWhere((inverse) => inverse.where({ base: input.quote, quote: input.base })))
    .first();
  if (found) {
    await db("exchange_rates").where({ id: found.id }).update({ base: input.base, quote: input.quote, rate, updated_at: at });
    return { before: rowToRate(found), after: { ...rowToRate(found), base: input.base, quote: input.quote, rate } };
  }
  const id = clock.ids.next("xrt");
  await db("exchange_rates").insert({ id, user_id: userId, base: input.base, quote: input.quote, date: input.date, rate, created_at: at, updated_at: at });
  return { before: null, after: { id, base: input.base, quote: input.quote, rate, date: input.date } };
}

export interface UsedRate {
  /** 1 currency = rate home, as the person gave it (or its inverse, when given the other way round). */
  currency: string;
  rate: string;
  date: string;
  inverse: boolean;
}

/**
 * The rate converting `currency` into `home` on `day`: the newest given on or before the day, else the
 * earliest given after it (its date is shown either way; docs/decisions.md#net-worth). Either direction.
 */
export function rateFor(rates: readonly ExchangeRate[], currency: string, home: string, day: string): UsedRate | undefined {
  const pair = rates.filter((r) => (r.base === currency && r.quote === home) || (r.base === home && r.quote === currency));
  if (pair.length === 0) return undefined;
  const before = pair.filter((r) => r.date <= day);
  const r = before.length > 0 ? before[before.length - 1]! : pair[0]!;
  return { currency, rate: r.rate, date: r.date, inverse: r.base === home };
}

/** minor units of `from` → minor units of `to` at `rate` (1 from = rate to; or 1 to = rate from when inverse), half away from zero. */
export function convertMinor(minor: bigint, from: string, to: string, used: UsedRate): bigint {
  const [int, frac = ""] = used.rate.split(".");
  const scaled = BigInt(`${int}${frac}`);
  const scale = 10n ** BigInt(frac.length);
  const shift = 10n ** BigInt(Math.abs(currencyExponent(to) - currencyExponent(from)));
  const up = currencyExponent(to) >= currencyExponent(from);
  // value_to = minor × (up ? shift : 1/shift) × rate  (or ÷ rate when inverse)
  let num = minor * (used.inverse ? scale : scaled) * (up ? shift : 1n);
  let den = (used.inverse ? scaled : scale) * (up ? 1n : shift);
  if (den < 0n) [num, den] = [-num, -den];
  const q = num / den;
  const r = num % den;
  return 2n * (r < 0n ? -r : r) >= den ? q + (num < 0n ? -1n : 1n) : q;
}
