/**
 * Savings goals and their contribution ledger. The saved amount is never stored: it is the SUM of the
 * goal's contributions, computed by the database. A contribution is a signed amount (positive adds,
 * negative withdraws) with a date, a note, and, when the money moved in a wallet, the wallet and the
 * transaction recorded with it.
 */
import type { Knex } from "knex";
import type { Goal, GoalContribution, GoalStatus } from "../../../generated/types.js";
import { notFound } from "../../errors.js";
import { toMinorBigInt, toMoney, type MinorLike } from "../../money/amount.js";
import { foldKey, nullableText } from "../shared/text.js";
import { jsonRowsSql, jsonValue } from "../../db/dialect.js";

export interface GoalRecord {
  id: string;
  userId: string;
  name: string;
  targetMinor: bigint | null;
  currency: string;
  targetDate: string | null;
  walletId: string | null;
  status: GoalStatus;
  achievedAt: string | null;
  notes: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ContributionRecord {
  id: string;
  userId: string;
  goalId: string;
  amountMinor: bigint;
  date: string;
  note: string | null;
  fromWalletId: string | null;
  transactionId: string | null;
  createdAt: string;
}

export function rowToGoal(row: Record<string, unknown>): GoalRecord {
  return {
    id: String(row.id),
    userId: String(row.user_id),
    name: String(row.name),
    targetMinor: row.target_minor === null || row.target_minor === undefined ? null : toMinorBigInt(row.target_minor as MinorLike),
    currency: String(row.currency),
    targetDate: nullableText(row.target_date),
    walletId: nullableText(row.wallet_id),
    status: String(row.status) as GoalStatus,
    achievedAt: nullableText(row.achieved_at),
    notes: nullableText(row.notes),
    createdAt: String(row.created_at),
    updatedAt: String(row.updated_at),
  };
}

function goalToRow(g: GoalRecord): Record<string, unknown> {
  return {
    id: g.id,
    user_id: g.userId,
    name: g.name,
    name_normalized: foldKey(g.name),
    target_minor: g.targetMinor,
    currency: g.currency,
    target_date: g.targetDate,
    wallet_id: g.walletId,
    status: g.status,
    achieved_at: g.achievedAt,
    notes: g.notes,
    created_at: g.createdAt,
    updated_at: g.updatedAt,
  };
}

export function goalToApi(g: GoalRecord, savedMinor: bigint): Goal {
  return {
    id: g.id,
    name: g.name,
    target_amount: g.targetMinor === null ? null : toMoney(g.targetMinor, g.currency),
    currency: g.currency,
    target_date: g.targetDate,
    wallet_id: g.walletId,
    status: g.status,
    saved: toMoney(savedMinor, g.currency),
    achieved_at: g.achievedAt,
    notes: g.notes,
    created_at: g.createdAt,
    updated_at: g.updatedAt,
  };
}

function rowToContribution(row: Record<string, unknown>): ContributionRecord {
  return {
    id: String(row.id),
    userId: String(row.user_id),
    goalId: String(row.goal_id),
    amountMinor: toMinorBigInt(row.amount_minor as MinorLike),
    date: String(row.date),
    note: nullableText(row.note),
    fromWalletId: nullableText(row.from_wallet_id),
    transactionId: nullableText(row.transaction_id),
    createdAt: String(row.created_at),
  };
}

export function contributionToApi(c: ContributionRecord, currency: string): GoalContribution {
  return {
    id: c.id,
    goal_id: c.goalId,
    amount: toMoney(c.amountMinor, currency),
    date: c.date,
    note: c.note,
    from_wallet_id: c.fromWalletId,
    transaction_id: c.transactionId,
    created_at: c.createdAt,
  };
}

export async function insertGoal(db: Knex, g: GoalRecord): Promise<void> {
  await db("goals").insert(goalToRow(g));
}

export async function updateGoalRow(db: Knex, g: GoalRecord): Promise<void> {
  const { id: _id, user_id: _user, created_at: _created, ...changes } = goalToRow(g);
  await db("goals").where({ id: g.id, user_id: g.userId }).update(changes);
}

/** Deletes the goal and its contributions (wallet transactions are never touched). */
export async function deleteGoalRows(db: Knex, userId: string, goalId: string): Promise<void> {
  await db("goal_contributions").where({ user_id: userId, goal_id: goalId }).delete();
  await db("goals").where({ id: goalId, user_id: userId }).delete();
}

/** The user's goal with this id, or not_found on `field` (another user's goal is not found either). */
export async function getGoal(db: Knex, userId: string, id: string, field = "goal_id"): Promise<GoalRecord> {
  const row = await db("goals").where({ id, user_id: userId }).first();
  if (!row) throw notFound("goal", field, id);
  return rowToGoal(row);
}

export interface GoalSums {
  /** SUM of all contributions. */
  saved: bigint;
  /** SUM of the contributions dated from..to (the recent window of get_goal_progress). */
  recent: bigint;
  count: number;
}

/**
 * Per goal, in one aggregation query: the saved amount (all contributions) and the sum of those dated
 * within [from, to]. Goals without contributions get zeros.
 */
export async function goalSums(db: Knex, userId: string, goalIds: readonly string[], window?: { from: string; to: string }): Promise<Map<string, GoalSums>> {
  const out = new Map<string, GoalSums>();
  for (const id of goalIds) out.set(id, { saved: 0n, recent: 0n, count: 0 });
  if (goalIds.length === 0) return out;
  const rows = (await goalSumsQuery(db, userId, window).whereIn("goal_id", [...goalIds])) as {
    goal_id: string;
    saved: MinorLike | null;
    recent: MinorLike | null;
    n: MinorLike;
  }[];
  for (const r of rows) {
    out.set(String(r.goal_id), { saved: toMinorBigInt(r.saved ?? 0), recent: toMinorBigInt(r.recent ?? 0), count: Number(r.n) });
  }
  return out;
}

/** A goal with its sums (goalSums) and, when asked, its latest contributions, newest first. */
export interface GoalWithSums {
  goal: GoalRecord;
  sums: GoalSums;
  latest: ContributionRecord[];
}

/** The columns rowToContribution reads, as SQL over the alias `x` (jsonRowsSql's fields). */
const CONTRIBUTION_FIELDS = {
  id: "x.id",
  user_id: "x.user_id",
  goal_id: "x.goal_id",
  amount_minor: "CAST(x.amount_minor AS TEXT)",
  date: "x.date",
  note: "x.note",
  from_wallet_id: "x.from_wallet_id",
  transaction_id: "x.transaction_id",
  created_at: "x.created_at",
} as const;

/**
 * One goal (not_found naming `field`) or the user's goals by name (archived ones when asked), each with
 * goalSums' sums over `window` and, with `latest`, that many of its newest contributions
 * (listContributions' order): one statement, the sums a grouped query joined on the goal id, the
 * contributions a JSON array per goal (jsonRowsSql).
 */
export async function goalsWithSums(
  db: Knex,
  userId: string,
  which: { goalId: string; field: string } | { includeArchived: boolean },
  opts: { window?: { from: string; to: string }; latest?: number } = {},
): Promise<GoalWithSums[]> {
  const sums = goalSumsQuery(db, userId, opts.window);
  if ("goalId" in which) sums.andWhere("goal_id", which.goalId);
  const q = db({ g: "goals" })
    .where("g.user_id", userId)
    .leftJoin(sums.as("s"), "s.goal_id", "g.id")
    .select("g.*", { sum_saved: "s.saved", sum_recent: "s.recent", sum_n: "s.n" });
  if (opts.latest !== undefined) {
    const newest = "x.date DESC, x.created_at DESC, x.id DESC";
    const from = `(SELECT * FROM goal_contributions c WHERE c.user_id = g.user_id AND c.goal_id = g.id ORDER BY c.date DESC, c.created_at DESC, c.id DESC LIMIT ${Number(opts.latest)}) x`;
    q.select(db.raw(jsonRowsSql(db, CONTRIBUTION_FIELDS, from, newest, "latest_rows")));
  }
  if ("goalId" in which) q.andWhere("g.id", which.goalId);
  else if (!which.includeArchived) q.whereNot("g.status", "archived");
  const rows = (await q.orderBy([{ column: "g.name_normalized" }, { column: "g.id" }])) as Record<string, unknown>[];
  if ("goalId" in which && rows.length === 0) throw notFound("goal", which.field, which.goalId);
  return rows.map((r) => ({
    goal: rowToGoal(r),
    sums: { saved: toMinorBigInt((r.sum_saved ?? 0) as MinorLike), recent: toMinorBigInt((r.sum_recent ?? 0) as MinorLike), count: Number(r.sum_n ?? 0) },
    latest: ((jsonValue(r.latest_rows) as Record<string, unknown>[] | null) ?? []).map(rowToContribution),
  }));
}

/** goalSums as a query (goal_id, saved, recent, n) over all the user's goals, to be narrowed, run or joined. */
function goalSumsQuery(db: Knex, userId: string, window?: { from: string; to: string }): Knex.QueryBuilder {
  const w = window ?? { from: "9999-12-31", to: "0000-01-01" }; // an empty window
  return db("goal_contributions")
    .where({ user_id: userId })
    .groupBy("goal_id")
    .select("goal_id")
    .sum({ saved: "amount_minor" })
    .select(db.raw('SUM(CASE WHEN "date" >= ? AND "date" <= ? THEN amount_minor ELSE 0 END) AS recent', [w.from, w.to]))
    .count({ n: "*" });
}

/** The saved amount of one goal (SUM of its contributions). */
export async function savedOf(db: Knex, userId: string, goalId: string): Promise<bigint> {
  return (await goalSums(db, userId, [goalId])).get(goalId)?.saved ?? 0n;
}

export async function insertContribution(db: Knex, c: ContributionRecord): Promise<void> {
  await db("goal_contributions").insert({
    id: c.id,
    user_id: c.userId,
    goal_id: c.goalId,
    amount_minor: c.amountMinor,
    date: c.date,
    note: c.note,
    from_wallet_id: c.fromWalletId,
    transaction_id: c.transactionId,
    created_at: c.createdAt,
  });
}

/** A goal's contributions, newest first (date, then time recorded); `limit` for the latest only. */
export async function listContributions(db: Knex, userId: string, goalId: string, limit?: number): Promise<ContributionRecord[]> {
  const q = db("goal_contributions")
    .where({ user_id: userId, goal_id: goalId })
    .orderBy([
      { column: "date", order: "desc" },
      { column: "created_at", order: "desc" },
      { column: "id", order: "desc" },
    ]);
  if (limit !== undefined) q.limit(limit);
  return (await q).map(rowToContribution);
}
