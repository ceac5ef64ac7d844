/**
 * Rules shared by the budget, goal and bill-reminder records: a name unique per user, a wallet in the
 * record's currency, JSON list columns. The ledger's vocabulary (text, amounts, currencies, wallets,
 * today) is used as it is: src/domain/README.md names the one helper for each job.
 */
import type { Knex } from "knex";
import type { DomainContext } from "../../context.js";
import { AppError, invalidParams } from "../../errors.js";
import { forUpdate } from "../../db/dialect.js";
import { cleanText, foldKey } from "./text.js";

/**
 * Refuses a name the user already uses for another record of the same table (case-insensitive).
 * Checked before writing: a unique violation on Postgres would abort the whole write transaction.
 */
export async function assertNameFree(db: Knex, table: "budgets" | "goals" | "bill_reminders", userId: string, name: string, exceptId?: string): Promise<void> {
  const normalized = foldKey(name);
  const q =
    table === "bill_reminders"
      ? // bill_reminders has no name_normalized column: read the user's reminders and compare folded names here.
        db(table).select("id", "name").where({ user_id: userId })
      : db(table).select("id").where({ user_id: userId, name_normalized: normalized });
  if (exceptId) q.whereNot({ id: exceptId });
  const rows = (await q) as { id: string; name?: string }[];
  const clash = table === "bill_reminders" ? rows.find((r) => foldKey(String(r.name)) === normalized) : rows[0];
  if (clash) {
    const what = table === "budgets" ? "budget" : table === "goals" ? "goal" : "bill reminder";
    throw new AppError(
      "conflict",
      `name: the user already has a ${what} named ${JSON.stringify(cleanText(name))} (names are compared case-insensitively); choose another name or change the existing ${what} (id ${clash.id}).`,
      {
        field: "name",
        existing_id: clash.id,
      },
    );
  }
}

/** Refuses a wallet whose currency differs from the record's. */
export function assertSameCurrency(wallet: { id: string; currency: string }, currency: string, field: string, what: string): void {
  if (wallet.currency !== currency) {
    throw invalidParams(
      field,
      `a wallet in ${currency}`,
      `${field}: wallet ${wallet.id} holds ${wallet.currency}, but the ${what} is in ${currency}; choose a wallet in ${currency}.`,
    );
  }
}

/** A JSON text column holding a list of strings. */
export function parseList(text: unknown): string[] {
  if (text === null || text === undefined || text === "") return [];
  const value: unknown = JSON.parse(String(text));
  return Array.isArray(value) ? value.map(String) : [];
}

/**
 * Takes the row lock of the user's record `id` in `table` for the rest of the write (Postgres: FOR
 * UPDATE; SQLite's writes are serial already). Every update and delete, dry runs included, takes it
 * before its first read: a concurrent delete of the same row then finishes first, and this write finds
 * the row gone (not_found) instead of reading it, losing it and failing on the second read.
 */
export async function lockRow(
  db: Knex,
  table: "wallets" | "budgets" | "goals" | "bill_reminders" | "transactions" | "rules",
  userId: string,
  id: string,
): Promise<void> {
  await forUpdate(db, db(table).where({ user_id: userId, id }).first("id"));
}

/**
 * A one-record write the person confirms (every delete) binds its confirmation to the record as the dry
 * run shows it, as a bulk write binds its rows (src/writes/preview.ts): the commit that a confirmation
 * dialog's accept makes is stale_preview when the record changed since the dialog showed it (issue 51).
 * A delete takes no preview_id, so its dry run answers none (dialogOnly). Called with the record locked
 * and read, before any write.
 */
export function bindShownRecord(ctx: Pick<DomainContext, "bindPreview">, noun: string, id: string, shown: unknown, updatedAt?: string | null): void {
  ctx.bindPreview?.({ noun, rows: [{ id, content: shown, updatedAt: updatedAt ?? null }], dialogOnly: true });
}
