/**
 * The currency a person named, checked against the currency money is kept in (a wallet's, a goal's, a
 * budget's or a bill's). A write's amount is read in that currency; without this check "9.99 USD" into a
 * euro wallet is silently booked as €9.99 (issue 39). The refusal names the person's wallets in the named
 * currency, so the model can offer the right one instead of guessing; an import of a statement in another
 * currency is refused the same way.
 */
import type { Knex } from "knex";
import { invalidParams } from "../../errors.js";
import { requireKnownCurrency } from "../shared/amounts.js";

/** How many wallets a refusal names: enough for a person's accounts, never a long list in an error. */
const NAMED_WALLETS = 5;

/**
 * Refuses `named` (the call's `field`) unless it is `held`, the currency of `what` (e.g. `the wallet
 * "Girokonto"`). Absent: nothing to check (the amount is in `held`, as the descriptions say).
 */
export async function checkNamedCurrency(db: Knex, userId: string, named: string | undefined, held: string, what: string, field = "currency"): Promise<void> {
  if (named === undefined || named === held) return;
  requireKnownCurrency(named, field);
  throw invalidParams(field, `${held}, the currency of ${what}`, `${field}: ${what} holds ${held}, not ${named}. ${await walletsIn(db, userId, named)}`);
}

/** A sentence naming the person's open wallets in `currency` (ids to pass as wallet_id), or saying there are none. */
export async function walletsIn(db: Knex, userId: string, currency: string): Promise<string> {
  const rows = (await db("wallets")
    .where({ user_id: userId, currency, archived: false })
    .orderBy([{ column: "name_normalized" }, { column: "id" }])
    .limit(NAMED_WALLETS + 1)
    .select("id", "name")) as { id: string; name: string }[];
  if (rows.length === 0)
    return `The user has no open wallet in ${currency}: create one (create_wallet), or give the amount converted into the wallet's currency.`;
  const named = rows
    .slice(0, NAMED_WALLETS)
    .map((r) => `${JSON.stringify(r.name)} (${r.id})`)
    .join(", ");
  return `Wallets in ${currency}: ${named}${rows.length > NAMED_WALLETS ? ", …" : ""}. Use one of them, or give the amount converted.`;
}
