/**
 * The example world of openrpc.json: the user, wallets, transaction, budget, goal (with contributions)
 * and bill reminder that the spec's examples refer to, inserted with the examples' own ids, so each
 * example's params can be replayed against a real server. The rows are read from the examples' results,
 * so the world and the examples cannot drift apart.
 */
import { readFileSync } from "node:fs";
import type { Knex } from "knex";
import { createToken, KNOWN_SCOPES } from "../../src/auth/tokens.js";
import { toRRule } from "../../src/domain/bills/schedule.js";
import { foldedKeys, foldKey } from "../../src/domain/shared/text.js";

const spec = JSON.parse(readFileSync(new URL("../../openrpc.json", import.meta.url), "utf8"));
const example = (method: string) => spec.methods.find((m: any) => m.name === method).examples[0].result.value;

export const EXAMPLE_USER_ID = "usr_example0000000001";
const AT = "2026-01-02T15:04:05Z";

/**
 * The server's preview key in the example world (src/writes/preview.ts): the spec's stale_preview example
 * carries a preview_id signed with it, for a dry run that saw other rows than the world holds.
 */
const EXAMPLE_PREVIEW_KEY = Buffer.from("example-preview-key-for-the-spec").toString("base64url");

export async function seedExampleWorld(db: Knex, pepper: string): Promise<string> {
  await db("server_secrets").insert({ name: "preview", value: EXAMPLE_PREVIEW_KEY, created_at: AT });
  await db("users").insert({
    id: EXAMPLE_USER_ID,
    email: "example@example.test",
    email_normalized: "example@example.test",
    password_hash: "scrypt$none",
    timezone: "UTC",
    default_currency: "USD",
    created_at: AT,
    updated_at: AT,
  });
  // The archived wallet without transactions is the one delete_wallet's example previews.
  const wallets = [...example("list_wallets").wallets, example("delete_wallet").wallet];
  for (const w of wallets) {
    await db("wallets").insert({
      id: w.id,
      user_id: EXAMPLE_USER_ID,
      name: w.name,
      name_normalized: foldKey(w.name),
      type: w.type,
      currency: w.currency,
      opening_balance_minor: String(w.opening_balance.minor),
      opening_date: w.opening_date,
      archived: w.archived,
      notes: w.notes,
      created_at: w.created_at,
      updated_at: w.updated_at,
    });
  }
  for (const t of example("list_transactions").transactions) {
    await db("transactions").insert({
      id: t.id,
      user_id: EXAMPLE_USER_ID,
      wallet_id: t.wallet_id,
      date: t.date,
      amount_minor: String(t.amount.minor),
      currency: t.currency,
      direction: t.direction,
      payee: t.payee,
      description: t.description,
      category: t.category,
      ...foldedKeys({ payee: t.payee, category: t.category }),
      notes: t.notes,
      external_id: t.external_id,
      transfer_id: t.transfer_id,
      counterpart_wallet_id: t.counterpart_wallet_id,
      created_at: t.created_at,
      updated_at: t.updated_at,
    });
    for (const tag of t.tags) await db("transaction_tags").insert({ transaction_id: t.id, user_id: EXAMPLE_USER_ID, tag });
  }
  // update_transactions' example: this year's work travel, as the rows it tags were before.
  for (const t of example("update_transactions").transactions as {
    id: string;
    date: string;
    amount: { minor: number; currency: string };
    payee: string;
    changes: { field: string; before: string[] }[];
  }[]) {
    await db("transactions").insert({
      id: t.id,
      user_id: EXAMPLE_USER_ID,
      wallet_id: "wal_example0000000001",
      date: t.date,
      amount_minor: String(t.amount.minor),
      currency: t.amount.currency,
      direction: "expense",
      payee: t.payee,
      category: "Travel",
      ...foldedKeys({ payee: t.payee, category: "Travel" }),
      created_at: AT,
      updated_at: AT,
    });
    for (const tag of t.changes.find((c) => c.field === "tags")!.before)
      await db("transaction_tags").insert({ transaction_id: t.id, user_id: EXAMPLE_USER_ID, tag });
  }
  for (const b of example("list_budgets").budgets) {
    await db("budgets").insert({
      id: b.id,
      user_id: EXAMPLE_USER_ID,
      name: b.name,
      name_normalized: foldKey(b.name),
      amount_minor: String(b.amount.minor),
      currency: b.currency,
      period: b.period,
      interval: b.interval,
      anchor_date: b.anchor_date,
      categories: JSON.stringify(b.categories),
      tags: JSON.stringify(b.tags),
      wallet_ids: JSON.stringify(b.wallet_ids),
      start_date: b.start_date,
      end_date: b.end_date,
      rollover: b.rollover,
      alert_threshold: b.alert_threshold,
      notes: b.notes,
      created_at: b.created_at,
      updated_at: b.updated_at,
    });
  }
  for (const g of example("list_goals").goals) {
    await db("goals").insert({
      id: g.id,
      user_id: EXAMPLE_USER_ID,
      name: g.name,
      name_normalized: foldKey(g.name),
      target_minor: g.target_amount ? String(g.target_amount.minor) : null,
      currency: g.currency,
      target_date: g.target_date,
      wallet_id: g.wallet_id,
      status: g.status,
      achieved_at: g.achieved_at,
      notes: g.notes,
      created_at: g.created_at,
      updated_at: g.updated_at,
    });
  }
  for (const c of example("get_goal_progress").goals[0].recent_contributions) {
    await db("goal_contributions").insert({
      id: c.id,
      user_id: EXAMPLE_USER_ID,
      goal_id: c.goal_id,
      amount_minor: String(c.amount.minor),
      date: c.date,
      note: c.note,
      transaction_id: c.transaction_id,
      created_at: c.created_at,
    });
  }
  for (const r of example("list_bill_reminders").reminders) {
    await db("bill_reminders").insert({
      id: r.id,
      user_id: EXAMPLE_USER_ID,
      name: r.name,
      payee: r.payee,
      amount_minor: r.amount ? String(r.amount.minor) : null,
      amount_min_minor: r.amount_min ? String(r.amount_min.minor) : null,
      amount_max_minor: r.amount_max ? String(r.amount_max.minor) : null,
      currency: r.currency,
      wallet_id: r.wallet_id,
      category: r.category,
      schedule: JSON.stringify(r.schedule),
      rrule: toRRule(r.schedule),
      start_date: r.schedule.start_date,
      notice_days: r.notice_days,
      autopay: r.autopay,
      active: r.active,
      notes: r.notes,
      created_at: r.created_at,
      updated_at: r.updated_at,
    });
  }
  for (const r of example("list_rules").rules) {
    await db("rules").insert({
      id: r.id,
      user_id: EXAMPLE_USER_ID,
      position: r.position,
      field: r.field,
      operator: r.operator,
      value: r.value,
      value_key: foldKey(r.value),
      min_amount: r.min_amount,
      max_amount: r.max_amount,
      direction: r.direction,
      wallet_id: r.wallet_id,
      set_category: r.set_category,
      add_tags: JSON.stringify(r.add_tags),
      rename_payee: r.rename_payee,
      created_at: AT,
      updated_at: AT,
    });
  }
  // undo_change's example takes back audit 1050: the creation of a transaction no other example touches,
  // with the row the audit captured for it (as it is now: nothing has changed it since).
  const undo = example("undo_change") as { undone: { audit_id: string }; rows: { id: string }[] };
  const undone = undo.undone;
  const first = await db("transactions").where({ id: "txn_example0000000001" }).first();
  await db("transactions").insert({ ...first, id: undo.rows[0]!.id, payee: "Corner Bakery", amount_minor: String(first.amount_minor), external_id: null });
  const row = await db("transactions").where({ id: undo.rows[0]!.id }).first();
  await db("audit_log").insert({
    id: Number(undone.audit_id),
    created_at: AT,
    user_id: EXAMPLE_USER_ID,
    token_id: null,
    tool: "create_transaction",
    action: "create",
    resource_type: "transaction",
    resource_id: row.id,
    idempotency_key: "7c9e6679-7425-40de-944b-e07fc1f90ae7",
    request_id: "example-world",
  });
  await db("audit_rows").insert({
    audit_id: Number(undone.audit_id),
    user_id: EXAMPLE_USER_ID,
    table_name: "transactions",
    row_key: JSON.stringify({ id: row.id }),
    before_json: null,
    after_json: JSON.stringify(row, (_k, v) => (typeof v === "bigint" ? String(v) : v)),
  });
  const { token } = await createToken(
    db,
    EXAMPLE_USER_ID,
    { name: "example", scopes: [...KNOWN_SCOPES], expiresInDays: 365 },
    pepper,
    new Date("2026-03-01T00:00:00Z"),
  );
  return token;
}
