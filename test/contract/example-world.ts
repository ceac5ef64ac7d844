/**
 * The example world of openrpc.json: the person, wallets, transactions, budget, goal (with contributions),
 * bill reminder and rule that the spec's examples refer to, made the way a person's data is: through the
 * tools (the service's dispatch: the same validation, write pipeline, audit and derived fields as a
 * chatbot's calls, like the demo person of src/demo/seed.ts), never by inserting rows. Only the ids and the
 * clock are the examples' own: each write mints the example's id (the world's id source hands it out) at
 * the example's created_at. The records are read from the examples' results, so the world and the
 * examples cannot drift apart; what no example's result shows (the rest of the person's first quarter,
 * the coffee Claude Desktop corrected, the bakery purchase undo_change takes back) is written here as
 * tool calls too. The audit counter alone is set directly (auditIdsUpTo), standing for earlier history.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Knex } from "knex";
import { handlers } from "../../generated/tool-modules.js";
import { authenticateBearer, createToken, KNOWN_SCOPES } from "../../src/auth/tokens.js";
import { createUser } from "../../src/auth/users.js";
import { newId, type IdPrefix, type IdSource } from "../../src/db/ids.js";
import { createDispatch } from "../../src/rpc/dispatch.js";
import { createWritePipeline } from "../../src/writes/pipeline.js";
import { engine } from "../helpers/database.js";
import type { TestServer } from "../helpers/server.js";

const spec = JSON.parse(readFileSync(new URL("../../openrpc.json", import.meta.url), "utf8"));
const firstExample = (method: string) => spec.methods.find((m: any) => m.name === method).examples[0];
const exampleOf = (method: string) => firstExample(method).result.value;
const paramsOf = (method: string) => Object.fromEntries(firstExample(method).params.map((p: any) => [p.name, p.value]));

export const EXAMPLE_USER_ID = "usr_example0000000001";
const AT = "2026-01-02T15:04:05Z";

/**
 * The server's preview key in the example world (src/writes/preview.ts): the spec's stale_preview example
 * carries a preview_id signed with it, for a dry run that saw other rows than the world holds.
 */
const EXAMPLE_PREVIEW_KEY = Buffer.from("example-preview-key-for-the-spec").toString("base64url");

/** The examples' ids: each write takes the id queued for its prefix, in order; anything else is random. */
function exampleIds(): IdSource & { queue(...ids: string[]): void; left(): string[] } {
  const queued: string[] = [];
  return {
    queue: (...ids) => queued.push(...ids),
    left: () => queued.splice(0),
    next(prefix: IdPrefix) {
      const i = queued.findIndex((id) => id.startsWith(`${prefix}_`));
      return i < 0 ? newId(prefix) : queued.splice(i, 1)[0]!;
    },
  };
}

/**
 * The audit log as a person's would be at the examples' time: entries up to `id` written before. The id
 * comes from the engine's own counter, so the next write draws `id + 1` (list_changes' and undo_change's
 * examples name theirs).
 */
async function auditIdsUpTo(db: Knex, id: number): Promise<void> {
  if (engine === "postgres") await db.raw("SELECT setval(pg_get_serial_sequence('audit_log', 'id'), ?)", [id]);
  else await db.raw("UPDATE sqlite_sequence SET seq = ? WHERE name = 'audit_log'", [id]);
}

const money = (m: { value: string } | null | undefined) => (m ? m.value.replace(/^-/, "") : undefined);
const present = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));

/** Builds the world on the server's database and returns a token of the example person with every scope. */
export async function seedExampleWorld(server: TestServer): Promise<string> {
  const { db, config } = server;
  await db("server_secrets").insert({ name: "preview", value: EXAMPLE_PREVIEW_KEY, created_at: AT });
  let clock = new Date(AT);
  const ids = exampleIds();
  ids.queue(EXAMPLE_USER_ID);
  await createUser(db, { email: "example@example.test", password: "example world password", timezone: "America/New_York", currency: "USD" }, clock, ids);
  // whoami's token: the one the replay calls with, holding every scope.
  ids.queue("tok_example0000000001");
  const { token } = await createToken(
    db,
    EXAMPLE_USER_ID,
    { name: "Claude Desktop", scopes: [...KNOWN_SCOPES], expiresInDays: 365 },
    config.tokenPepper,
    clock,
    ids,
  );
  const caller = await authenticateBearer(db, `Bearer ${token}`, config.tokenPepper, clock);
  const dispatch = createDispatch({
    db,
    config,
    handlers,
    runWrite: createWritePipeline({ bus: server.services.bus }),
    log: server.services.log,
    now: () => clock,
    ids,
  });
  const call = async (tool: string, params: Record<string, unknown>, at: string, ...newIds: string[]) => {
    clock = new Date(at);
    ids.queue(...newIds);
    const params_ = { idempotency_key: randomUUID(), ...present(params) };
    const answer = await dispatch(tool, params_, { caller, requestId: `example-world-${randomUUID()}` });
    const unused = ids.left();
    if (unused.length > 0) throw new Error(`example world: ${tool} did not mint ${unused.join(", ")}`);
    return answer;
  };

  // The wallets; the archived one without transactions is the one delete_wallet's example previews.
  for (const w of [...exampleOf("list_wallets").wallets, exampleOf("delete_wallet").wallet]) {
    const fields = { name: w.name, type: w.type, currency: w.currency, opening_date: w.opening_date, notes: w.notes };
    await call("create_wallet", { ...fields, opening_balance: w.opening_balance.value }, w.created_at, w.id);
    if (w.archived) await call("update_wallet", { wallet_id: w.id, archived: true }, w.updated_at);
  }
  const transaction = (t: Record<string, any>, at: string) =>
    call(
      "create_transaction",
      {
        wallet_id: t.wallet_id ?? "wal_example0000000001",
        date: t.date,
        amount: money(t.amount),
        direction: t.direction ?? "expense",
        payee: t.payee,
        description: t.description,
        category: t.category,
        tags: t.tags,
        notes: t.notes,
        external_id: t.external_id,
      },
      at,
      t.id,
    );
  for (const t of exampleOf("list_transactions").transactions) await transaction(t, t.created_at);
  // update_transactions' example: this year's work travel, as the rows it tags were before.
  for (const t of exampleOf("update_transactions").transactions)
    await transaction({ ...t, category: "Travel", tags: t.changes.find((c: any) => c.field === "tags").before }, AT);
  // The rest of the person's first quarter, which no example lists row by row but the totals count: the
  // emergency money moved to savings, freelance income, March's salary and rent (the bill reminder's
  // payee), the week's groceries and meals out.
  const checking = "wal_example0000000001";
  const rest: Record<string, unknown>[] = [
    { date: "2026-02-01", amount: "2500.00", direction: "transfer", to_wallet_id: "wal_example0000000002", description: "Emergency fund" },
    { date: "2026-02-10", amount: "1185.85", direction: "income", payee: "Client", category: "Freelance" },
    { date: "2026-03-01", amount: "3200.00", direction: "income", payee: "Employer", category: "Salary" },
    { date: "2026-03-01", amount: "900.00", direction: "expense", payee: "Oakwood Apartments", category: "Rent" },
    ...[
      ["03-02", "30.00"],
      ["03-04", "31.20"],
      ["03-05", "28.45"],
      ["03-07", "35.00"],
      ["03-09", "40.00"],
      ["03-11", "33.10"],
      ["03-12", "36.90"],
      ["03-13", "35.00"],
    ].map(([day, amount]) => ({ date: `2026-${day}`, amount, direction: "expense", payee: "Safeway", category: "Groceries", tags: ["household"] })),
    ...[
      ["03-06", "12.50"],
      ["03-10", "10.40"],
      ["03-12", "10.00"],
    ].map(([day, amount]) => ({ date: `2026-${day}`, amount, direction: "expense", payee: "Diner", category: "Dining" })),
  ];
  for (const t of rest) await call("create_transaction", { wallet_id: checking, ...t }, `${t.date}T12:00:00Z`);
  for (const b of exampleOf("list_budgets").budgets) {
    const { id, amount, status: _status, created_at, updated_at: _u, ...fields } = b;
    await call("create_budget", { ...fields, amount: amount.value }, created_at, id);
  }
  for (const g of exampleOf("list_goals").goals) {
    const fields = { name: g.name, currency: g.currency, target_date: g.target_date, wallet_id: g.wallet_id, notes: g.notes };
    await call("create_goal", { ...fields, target_amount: money(g.target_amount) }, g.created_at, g.id);
  }
  // Oldest first, as they were added.
  for (const c of [...exampleOf("get_goal_progress").goals[0].recent_contributions].reverse())
    await call("add_goal_funds", { goal_id: c.goal_id, amount: c.amount.value, date: c.date, note: c.note }, c.created_at, c.id);
  for (const r of exampleOf("list_bill_reminders").reminders) {
    const { id, amount, amount_min, amount_max, schedule_text: _t, next_due_dates: _n, active: _a, created_at, updated_at: _u, ...fields } = r;
    await call("create_bill_reminder", { ...fields, amount: money(amount), amount_min: money(amount_min), amount_max: money(amount_max) }, created_at, id);
  }
  for (const r of exampleOf("list_rules").rules) {
    const { id, position: _p, ...fields } = r;
    await call("save_rule", fields, AT, id);
  }

  // list_changes' example: a coffee Claude Desktop entered at 12.40 and corrected to 14.20 with a note,
  // the person's 1,042nd write.
  const corrected = exampleOf("list_changes").changes[0];
  await call(
    "create_transaction",
    { wallet_id: "wal_example0000000001", date: "2026-03-14", amount: "12.40", direction: "expense", payee: "Blue Bottle Coffee", category: "Dining" },
    "2026-03-14T16:10:00Z",
    corrected.ids[0],
  );
  await auditIdsUpTo(db, Number(corrected.audit_id) - 1);
  await call(
    "update_transaction",
    { transaction_id: corrected.ids[0], amount: "14.20", notes: "Oat milk, not regular", idempotency_key: paramsOf("list_changes").idempotency_key },
    corrected.at,
  );

  // undo_change's example takes back the creation of a bakery purchase no other example touches (as it
  // is now: nothing has changed it since).
  const undo = exampleOf("undo_change");
  await auditIdsUpTo(db, Number(undo.undone.audit_id) - 1);
  await call(
    "create_transaction",
    { wallet_id: "wal_example0000000001", date: "2026-03-15", amount: "8.50", direction: "expense", payee: "Corner Bakery", category: "Dining" },
    "2026-03-15T09:12:00Z",
    undo.rows[0].id,
  );
  return token;
}
