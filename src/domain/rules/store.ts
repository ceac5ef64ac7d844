/**
 * The rules table: a person's categorisation rules in their order. Every query is scoped by user_id.
 * Positions are kept dense (1..n): saving a rule at a position shifts the others, deleting closes the gap.
 */
import type { Knex } from "knex";
import type { IdSource } from "../../db/ids.js";
import { conflict, notFound } from "../../errors.js";
import { schemaBounds } from "../../../generated/limits.js";
import { foldKey } from "../shared/text.js";
import type { RuleRow } from "./match.js";

/** At most this many rules per person (Rule.position's maximum in openrpc.json). */
export const MAX_RULES = (schemaBounds as unknown as Record<string, Record<string, { maximum?: number }>>).Rule?.position?.maximum ?? 200;

function fromRow(raw: Record<string, unknown>): RuleRow {
  const text = (v: unknown) => (v == null ? null : String(v));
  return {
    id: String(raw.id),
    position: Number(raw.position),
    field: String(raw.field) as RuleRow["field"],
    operator: String(raw.operator) as RuleRow["operator"],
    value: String(raw.value),
    min_amount: text(raw.min_amount),
    max_amount: text(raw.max_amount),
    direction: text(raw.direction) as RuleRow["direction"],
    wallet_id: text(raw.wallet_id),
    set_category: text(raw.set_category),
    add_tags: raw.add_tags == null ? [] : (JSON.parse(String(raw.add_tags)) as string[]),
    rename_payee: text(raw.rename_payee),
  };
}

export async function listRules(db: Knex, userId: string): Promise<RuleRow[]> {
  const rows = await db("rules")
    .where({ user_id: userId })
    .orderBy([{ column: "position" }, { column: "id" }]);
  return rows.map(fromRow);
}

export async function getRule(db: Knex, userId: string, ruleId: string, field = "rule_id"): Promise<RuleRow> {
  const raw = await db("rules").where({ user_id: userId, id: ruleId }).first();
  if (!raw) throw notFound("rule", field, ruleId);
  return fromRow(raw);
}

export type RuleFields = Omit<RuleRow, "id" | "position">;

function columns(r: RuleFields) {
  return {
    field: r.field,
    operator: r.operator,
    value: r.value,
    value_key: foldKey(r.value),
    min_amount: r.min_amount,
    max_amount: r.max_amount,
    direction: r.direction,
    wallet_id: r.wallet_id,
    set_category: r.set_category,
    add_tags: r.add_tags.length === 0 ? null : JSON.stringify(r.add_tags),
    rename_payee: r.rename_payee,
  };
}

/** Moves the rules at positions from..to by one (positions carry no unique index, so one statement does). */
async function shift(db: Knex, userId: string, from: number, to: number, by: 1 | -1): Promise<void> {
  if (from > to) return;
  await db("rules")
    .where({ user_id: userId })
    .andWhereBetween("position", [from, to])
    .update({ position: db.raw("position + ?", [by]) });
}

export async function insertRule(db: Knex, userId: string, fields: RuleFields, position: number | undefined, at: string, ids: IdSource): Promise<RuleRow> {
  const count = Number((await db("rules").where({ user_id: userId }).count({ n: "*" }).first())?.n ?? 0);
  if (count >= MAX_RULES)
    throw conflict("rule_id", `rule_id: the user already has ${MAX_RULES} rules, the most this service keeps. Delete or widen one first.`);
  const pos = Math.min(position ?? count + 1, count + 1);
  await shift(db, userId, pos, count, 1);
  const id = ids.next("rul");
  await db("rules").insert({ id, user_id: userId, position: pos, ...columns(fields), created_at: at, updated_at: at });
  return { id, position: pos, ...fields };
}

export async function updateRule(db: Knex, userId: string, old: RuleRow, fields: RuleFields, position: number | undefined, at: string): Promise<RuleRow> {
  let pos = old.position;
  if (position !== undefined && position !== old.position) {
    const count = Number((await db("rules").where({ user_id: userId }).count({ n: "*" }).first())?.n ?? 0);
    pos = Math.min(position, count);
    // Take the rule out of the order, close the gap, open one at the new place.
    await db("rules").where({ user_id: userId, id: old.id }).update({ position: 0 });
    await shift(db, userId, old.position + 1, count, -1);
    await shift(db, userId, pos, count - 1, 1);
  }
  await db("rules")
    .where({ user_id: userId, id: old.id })
    .update({ position: pos, ...columns(fields), updated_at: at });
  return { id: old.id, position: pos, ...fields };
}

export async function deleteRule(db: Knex, userId: string, rule: RuleRow): Promise<void> {
  const count = Number((await db("rules").where({ user_id: userId }).count({ n: "*" }).first())?.n ?? 0);
  await db("rules").where({ user_id: userId, id: rule.id }).delete();
  await shift(db, userId, rule.position + 1, count, -1);
}
