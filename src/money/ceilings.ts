/**
 * The service's two money bounds, in minor units of a currency. Both come from info.x-limits of
 * openrpc.json (generated/limits.ts) in major units, so one bound holds for every currency:
 * - an amount is below `amountBelow` major units (1e12: the Amount pattern allows 12 integer digits);
 * - a wallet's balance and each of its monthly totals stay below `runningTotalBelow` major units in
 *   magnitude (1e14), checked before a write commits (src/domain/wallets/ceiling.ts).
 * With at most 4 decimals (ISO 4217's largest exponent) a running total stays below 10^18 minor units
 * and one more amount below 10^16, so no total ever reaches BIGINT's 9.22 x 10^18.
 */
import { limits } from "../../generated/limits.js";
import { currencyExponent } from "./currencies.js";

const scale = (currency: string) => 10n ** BigInt(currencyExponent(currency));

/** Every amount's magnitude is below this, in minor units of `currency`. */
export const amountLimitMinor = (currency: string): bigint => limits.amountBelow * scale(currency);

/** A running total's magnitude stays below this, in minor units of `currency`. */
export const runningTotalLimitMinor = (currency: string): bigint => limits.runningTotalBelow * scale(currency);
