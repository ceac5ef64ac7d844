/**
 * Small helpers shared by the budget, goal and bill-reminder domains: names unique per user, the
 * user's wallets as references, amounts at the tool boundary, JSON list columns, "today" and "now".
 */
import type { Knex } from "knex";
import { AppError, invalidParams, notFound } from "../../errors.js";
import { MoneyError, parseAmount, type ParseAmountOptions } from "../../money/amount.js";
import { isKnownCurrency } from "../../money/currencies.js";
import { todayInTimeZone } from "../../calendar/time-zones.js";

/** The form names are compared in: trimmed, Unicode NFC, lower case. */
export function normalizeName(name: string): string {
  return name.trim().normalize("NFC").toLowerCase();
}

/** A display name as stored: trimmed (the schema already refused blank names). */
export function cleanName(name: string): string {
  return name.trim();
}

/**
 * Refuses a name the user already uses for another record of the same table (case-insensitive).
 * Checked before writing: a unique violation on Postgres would abort the whole write transaction.
 */
export async function assertNameFree(db: Knex, table: "budgets" | "goals" | "bill_reminders", userId: string, name: string, exceptId?: string): Promise<void> {
  const normalized = normalizeName(name);
  const q =
    table === "bill_reminders"
      ? // bill_reminders has no name_normalized column: read the user's reminders and compare folded names here.
        db(table).select("id", "name").where({ user_id: userId })
      : db(table).select("id").where({ user_id: userId, name_normalized: normalized });
  if (exceptId) q.whereNot({ id: exceptId });
  const rows = (await q) as { id: string; name?: string }[];
  const clash = table === "bill_reminders" ? rows.find((r) => normalizeName(String(r.name)) === normalized) : rows[0];
  if (clash) {
    const what = table === "budgets" ? "budget" : table === "goals" ? "goal" : "bill reminder";
    throw new AppError(
      "conflict",
      `name: the user already has a ${what} named ${JSON.stringify(cleanName(name))} (names are compared case-insensitively); choose another name or change the existing ${what} (id ${clash.id}).`,
      {
        field: "name",
        existing_id: clash.id,
      },
    );
  }
}

export interface WalletRef {
  id: string;
  currency: string;
  name: string;
}

/** The user's wallet with this id, or not_found naming `field`. Another user's wallet is not found either. */
export async function getWalletRef(db: Knex, userId: string, walletId: string, field: string): Promise<WalletRef> {
  const row = await db("wallets").select("id", "currency", "name").where({ id: walletId, user_id: userId }).first();
  if (!row) throw notFound("wallet", field, walletId);
  return { id: String(row.id), currency: String(row.currency), name: String(row.name) };
}

/** Refuses a wallet whose currency differs from the record's. */
export function assertSameCurrency(wallet: WalletRef, currency: string, field: string, what: string): void {
  if (wallet.currency !== currency) {
    throw invalidParams(
      field,
      `a wallet in ${currency}`,
      `${field}: wallet ${wallet.id} holds ${wallet.currency}, but the ${what} is in ${currency}; choose a wallet in ${currency}.`,
    );
  }
}

/** parseAmount with its MoneyError turned into invalid_params. */
export function parseMoneyParam(input: unknown, currency: string, field: string, opts: ParseAmountOptions = {}): bigint {
  try {
    return parseAmount(input, currency, field, opts);
  } catch (err) {
    if (err instanceof MoneyError) throw invalidParams(err.field, err.expected, err.message);
    throw err;
  }
}

/** A currency argument the service knows (the schema only checks the shape). */
export function checkCurrency(currency: string, field = "currency"): string {
  if (!isKnownCurrency(currency)) {
    throw invalidParams(
      field,
      'an active ISO 4217 currency code such as "USD", "EUR" or "JPY"',
      `${field}: unknown currency ${JSON.stringify(currency)}; expected an active ISO 4217 code such as "USD".`,
    );
  }
  return currency;
}

/** What the clock helpers read of a handler's context (a ToolContext is one; domain code imports no tool types). */
export interface Clocked {
  readonly caller: { readonly timezone: string };
  now(): Date;
}

/** Today in the caller's timezone, by the injectable clock. */
export function todayFor(ctx: Clocked): string {
  return todayInTimeZone(ctx.caller.timezone, ctx.now());
}

/** The current instant as stored (ISO-8601 UTC). */
export function nowIso(ctx: Pick<Clocked, "now">): string {
  return ctx.now().toISOString();
}

/** A JSON text column holding a list of strings. */
export function parseList(text: unknown): string[] {
  if (text === null || text === undefined || text === "") return [];
  const value: unknown = JSON.parse(String(text));
  return Array.isArray(value) ? value.map(String) : [];
}

/** Removes duplicates that differ only in letter case, keeping the first spelling. */
export function dedupeCaseInsensitive(values: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const v of values) {
    const k = v.trim().toLowerCase();
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(v.trim());
  }
  return out;
}

/** null/undefined from the database, or the text. */
export function textOrNull(v: unknown): string | null {
  return v === null || v === undefined ? null : String(v);
}
