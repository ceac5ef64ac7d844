/** A statement row's decimal amount in the wallet currency's minor units, checked against the service's bounds. */
import { limits } from "../../../generated/limits.js";
import { exponentOf } from "../shared/amounts.js";

export function rowMinor(amount: string, currency: string): { minor: bigint } | { reason: string } {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(amount);
  if (!m) return { reason: `${JSON.stringify(amount)} is not a number` };
  const exponent = exponentOf(currency);
  const fraction = (m[3] ?? "").replace(/(?<!0)0+$/, "");
  if (fraction.length > exponent) return { reason: `${amount} has more decimals than ${currency} has (${exponent})` };
  if (BigInt(m[2]!) >= limits.amountBelow) return { reason: `${amount} is not below ${limits.amountBelow}, the largest amount the service stores` };
  const minor = BigInt(m[2]! + fraction.padEnd(exponent, "0"));
  if (minor === 0n) return { reason: "the amount is zero" };
  return { minor: m[1] === "-" ? -minor : minor };
}

export function dateInRange(date: string): boolean {
  return date >= limits.firstDate && date <= limits.lastDate;
}
