/**
 * Budget definitions: rows of `budgets` ↔ records ↔ the contract's Budget objects. Scope lists are
 * JSON text columns; the limit is BIGINT minor units beside the currency.
 */
import type { Knex } from "knex";
import type { Budget, BudgetPeriod, BudgetStatus, Rollover } from "../../../generated/types.js";
import { notFound } from "../../errors.js";
import { toMinorBigInt, toMoney, type MinorLike } from "../../money/amount.js";
import { parseList } from "../shared/common.js";
import { foldKey, nullableText } from "../shared/text.js";

export interface BudgetRecord {
  id: string;
  userId: string;
  name: string;
  amountMinor: bigint;
  currency: string;
  period: BudgetPeriod;
  interval: number;
  anchorDate: string;
  categories: string[];
  tags: string[];
  walletIds: string[];
  startDate: string;
  endDate: string | null;
  rollover: Rollover;
  alertThreshold: number;
  notes: string | null;
  createdAt: string;
  updatedAt: string;
}

export function rowToBudget(row: Record<string, unknown>): BudgetRecord {
  return {
    id: String(row.id),
    userId: String(row.user_id),
    name: String(row.name),
    amountMinor: toMinorBigInt(row.amount_minor as MinorLike),
    currency: String(row.currency),
    period: String(row.period) as BudgetPeriod,
    interval: Number(row.interval),
    anchorDate: String(row.anchor_date),
    categories: parseList(row.categories),
    tags: parseList(row.tags),
    walletIds: parseList(row.wallet_ids),
    startDate: String(row.start_date),
    endDate: nullableText(row.end_date),
    rollover: String(row.rollover) as Rollover,
    alertThreshold: Number(row.alert_threshold),
    notes: nullableText(row.notes),
    createdAt: String(row.created_at),
    updatedAt: String(row.updated_at),
  };
}

function budgetToRow(b: BudgetRecord): Record<string, unknown> {
  return {
    id: b.id,
    user_id: b.userId,
    name: b.name,
    name_normalized: foldKey(b.name),
    amount_minor: b.amountMinor,
    currency: b.currency,
    period: b.period,
    interval: b.interval,
    anchor_date: b.anchorDate,
    categories: JSON.stringify(b.categories),
    tags: JSON.stringify(b.tags),
    wallet_ids: JSON.stringify(b.walletIds),
    start_date: b.startDate,
    end_date: b.endDate,
    rollover: b.rollover,
    alert_threshold: b.alertThreshold,
    notes: b.notes,
    created_at: b.createdAt,
    updated_at: b.updatedAt,
  };
}

/** The contract's Budget object; `status` only when given. */
export function budgetToApi(b: BudgetRecord, status?: BudgetStatus): Budget {
  const out: Budget = {
    id: b.id,
    name: b.name,
    amount: toMoney(b.amountMinor, b.currency),
    currency: b.currency,
    period: b.period,
    interval: b.interval,
    anchor_date: b.anchorDate,
    categories: [...b.categories],
    tags: [...b.tags],
    wallet_ids: [...b.walletIds],
    start_date: b.startDate,
    end_date: b.endDate,
    rollover: b.rollover,
    alert_threshold: b.alertThreshold,
    notes: b.notes,
    created_at: b.createdAt,
    updated_at: b.updatedAt,
  };
  if (status) out.status = status;
  return out;
}

/** Whether the budget applies on `day` (between its start and end dates). */
export function budgetActiveOn(b: BudgetRecord, day: string): boolean {
  return b.startDate <= day && (b.endDate === null || day <= b.endDate);
}

export async function insertBudget(db: Knex, b: BudgetRecord): Promise<void> {
  await db("budgets").insert(budgetToRow(b));
}

export async function updateBudgetRow(db: Knex, b: BudgetRecord): Promise<void> {
  const { id: _id, user_id: _user, created_at: _created, ...changes } = budgetToRow(b);
  await db("budgets").where({ id: b.id, user_id: b.userId }).update(changes);
}

export async function deleteBudgetRow(db: Knex, userId: string, id: string): Promise<void> {
  await db("budgets").where({ id, user_id: userId }).delete();
}

/** The user's budget with this id, or not_found on `field` (another user's budget is not found either). */
export async function getBudget(db: Knex, userId: string, id: string, field = "budget_id"): Promise<BudgetRecord> {
  const row = await db("budgets").where({ id, user_id: userId }).first();
  if (!row) throw notFound("budget", field, id);
  return rowToBudget(row);
}

/** All of the user's budgets, by name. */
export async function listBudgetRecords(db: Knex, userId: string): Promise<BudgetRecord[]> {
  const rows = await db("budgets")
    .where({ user_id: userId })
    .orderBy([{ column: "name_normalized" }, { column: "id" }]);
  return rows.map(rowToBudget);
}
