/**
 * The values of `changes` (each changed field's before and after) have a type: the spec's ChangeValue,
 * one of text, a whole number, true/false, null, a list of texts, an amount of money, a split's parts or a
 * bill's schedule. Every example and every real answer validates against it, on each engine, and each of
 * those kinds occurs in a real answer (the type is no wider than what the server answers); a value of any
 * other kind fails the tool's result validator, which the server runs on every answer. In tools/list no
 * schema accepts any value (a schema without a type is what the MCP Inspector warns about).
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { expect } from "chai";
import { tools, type ToolDefinition } from "../../generated/registry.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

interface Change {
  field: string;
  before: unknown;
  after: unknown;
}

const spec = JSON.parse(readFileSync(new URL("../../openrpc.json", import.meta.url), "utf8"));
const byName = new Map<string, ToolDefinition>(tools.map((t) => [t.name, t]));

/** The tools whose answer carries `changes`, with where in the answer: top level, or per listed transaction. */
const WITH_CHANGES = tools.filter((t) => JSON.stringify(t.outputSchema).includes('"changes"') && t.name !== "list_changes");

function changesIn(result: Record<string, unknown>): Change[] {
  const own = (result.changes as Change[] | undefined) ?? [];
  // Per listed transaction (a bulk edit) or per row an undo reverts.
  const rows = [...((result.transactions as { changes?: Change[] }[] | undefined) ?? []), ...((result.rows as { changes?: Change[] }[] | undefined) ?? [])];
  return [...own, ...rows.flatMap((r) => r.changes ?? [])];
}

/** One example result of the tool with `changes` replaced (each listed transaction's, for a bulk edit). */
function withChanges(tool: ToolDefinition, changes: Change[]): Record<string, unknown> {
  const method = spec.methods.find((m: { name: string }) => m.name === tool.name);
  const examples = method.examples as { result: { value: Record<string, unknown> } }[];
  const result = structuredClone((examples.find((e) => changesIn(e.result.value).length > 0) ?? examples[0]!).result.value);
  if (Array.isArray(result.transactions)) for (const row of result.transactions) row.changes = changes;
  else if (tool.name === "undo_change" && Array.isArray(result.rows)) for (const row of result.rows) row.changes = changes;
  else result.changes = changes;
  return result;
}

const MONEY = { value: "-12.40", currency: "USD", minor: -1240 };
const PART = { amount: MONEY, category: "Dining", tags: ["work"], notes: null };
const SCHEDULE = { frequency: "monthly", start_date: "2026-01-05", day_of_month: 5 };

/** Each kind ChangeValue allows, by the name kindOf gives it. */
const KINDS: Record<string, unknown> = {
  text: "Groceries",
  integer: 90,
  boolean: false,
  null: null,
  texts: ["tax-2026", "work"],
  money: MONEY,
  parts: [PART],
  schedule: SCHEDULE,
};

/** Values of kinds no field has: each must fail. */
const UNEXPECTED: Record<string, unknown> = {
  "a fraction": 1.5,
  "an empty object": {},
  "an object of no known shape": { action: "update", resourceId: "txn_1" },
  "money without minor units": { value: "1.00", currency: "USD" },
  "a schedule without its start": { frequency: "monthly" },
  "a list of numbers": [1, 2],
  "a list of lists": [["a"]],
  "a list of empty objects": [{}],
  "a list of texts and parts": ["a", PART],
};

/** The kind of a value as ChangeValue's branches tell them apart (an empty list is both a list of texts and of parts). */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "string") return "text";
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "fraction";
  if (Array.isArray(value)) return value.length === 0 ? "empty list" : value.every((v) => typeof v === "string") ? "texts" : "parts";
  return "minor" in (value as object) ? "money" : "schedule";
}

describe("the typed before and after of changes", () => {
  it("every tool with changes accepts each kind of value, in before and in after", () => {
    expect(WITH_CHANGES.map((t) => t.name)).to.include.members([
      "update_transaction",
      "delete_wallet",
      "save_rule",
      "set_exchange_rate",
      "update_transactions",
    ]);
    for (const tool of WITH_CHANGES)
      for (const [kind, value] of Object.entries(KINDS)) {
        const result = withChanges(tool, [{ field: "x", before: value, after: value }]);
        expect(tool.validateResult(result), `${tool.name} ${kind}: ${JSON.stringify(tool.validateResult.errors)}`).to.equal(true);
      }
  });

  it("every tool with changes refuses a value of another kind, in before or in after", () => {
    for (const tool of WITH_CHANGES)
      for (const [kind, value] of Object.entries(UNEXPECTED)) {
        expect(tool.validateResult(withChanges(tool, [{ field: "x", before: value, after: null }])), `${tool.name} before: ${kind}`).to.equal(false);
        expect(tool.validateResult(withChanges(tool, [{ field: "x", before: null, after: value }])), `${tool.name} after: ${kind}`).to.equal(false);
      }
  });

  it("every example's changes are of the typed kinds", () => {
    let seen = 0;
    for (const tool of WITH_CHANGES) {
      const method = spec.methods.find((m: { name: string }) => m.name === tool.name);
      // An error example (x-error) has no result.
      for (const example of method.examples.filter((e: { result?: unknown }) => e.result !== undefined))
        for (const c of changesIn(example.result.value)) {
          seen++;
          for (const value of [c.before, c.after])
            expect(Object.keys(KINDS).concat("empty list"), `${tool.name} ${example.name} ${c.field}`).to.include(kindOf(value));
        }
    }
    // undo_change's example deletes a row, so it shows no changes; the others show at least one each.
    expect(seen).to.be.at.least(WITH_CHANGES.length);
  });

  it("tools/list: no input or output schema accepts any value, and the output schemas take each kind and refuse the others", () => {
    const TYPED = ["type", "$ref", "anyOf", "oneOf", "allOf", "const", "enum"];
    const untyped: string[] = [];
    const visit = (schema: unknown, path: string): void => {
      if (schema === null || typeof schema !== "object") return;
      const s = schema as Record<string, unknown>;
      if (!TYPED.some((k) => k in s)) untyped.push(path);
      for (const key of ["properties", "$defs"]) for (const [k, v] of Object.entries((s[key] as object | undefined) ?? {})) visit(v, `${path}/${key}/${k}`);
      if (s.items && typeof s.items === "object") visit(s.items, `${path}/items`);
      if (s.additionalProperties && typeof s.additionalProperties === "object") visit(s.additionalProperties, `${path}/additionalProperties`);
      for (const key of ["anyOf", "oneOf", "allOf"]) ((s[key] as unknown[] | undefined) ?? []).forEach((v, i) => visit(v, `${path}/${key}/${i}`));
    };
    for (const t of tools) {
      visit(t.inputSchema, `${t.name} inputSchema`);
      visit(t.outputSchema, `${t.name} outputSchema`);
    }
    expect(untyped).to.deep.equal([]);

    const ajv = new Ajv2020({ strict: false });
    for (const tool of WITH_CHANGES) {
      const validate = ajv.compile(tool.outputSchema);
      for (const [kind, value] of Object.entries(KINDS))
        expect(validate(withChanges(tool, [{ field: "x", before: value, after: null }])), `${tool.name} ${kind}`).to.equal(true);
      // tools/list names an object by its type only (codegen/schemas.ts SHALLOW_INSIDE); the other kinds fail there too.
      for (const kind of ["a fraction", "a list of numbers", "a list of lists"])
        expect(validate(withChanges(tool, [{ field: "x", before: UNEXPECTED[kind], after: null }])), `${tool.name} ${kind}`).to.equal(false);
    }
  });
});

describe(`the typed before and after of changes in real answers (${engine})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  let user: TestUser;
  const key = () => randomUUID();
  const answers: { tool: string; result: Record<string, unknown> }[] = [];

  before(async () => {
    server = await startTestServer({}, { now: () => new Date("2026-03-15T12:00:00Z") });
    user = await server.createUser();
  });
  after(async () => server?.close());

  /** Dry run, then commit; both answers are kept. The server validated each against its result schema. */
  async function write(tool: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const dry = await server.call(tool, { ...params, dry_run: true, idempotency_key: key() }, user.token);
    const done = await server.call(tool, { ...params, idempotency_key: key() }, user.token);
    answers.push({ tool, result: dry }, { tool, result: done });
    return done;
  }
  const call = (tool: string, params: Record<string, unknown>) => server.call(tool, { ...params, idempotency_key: key() }, user.token);

  it("updates and deletes of every kind of record answer changes of the typed kinds, and each kind occurs", async () => {
    const wallet = (await call("create_wallet", { name: "Checking", type: "checking", currency: "USD" })).wallet;
    const savings = (await call("create_wallet", { name: "Savings", type: "savings", currency: "USD" })).wallet;
    await write("update_wallet", { wallet_id: savings.id, name: "High-yield Savings", notes: "4 %", opening_balance: "100.00", archived: true });

    const { transaction } = await call("create_transaction", {
      wallet_id: wallet.id,
      amount: "60.00",
      direction: "expense",
      payee: "Market",
      category: "Groceries",
      date: "2026-03-14",
    });
    await write("update_transaction", {
      transaction_id: transaction.id,
      amount: "62.00",
      notes: "with a gift",
      parts: [
        { amount: "50.00", category: "Groceries", tags: ["food"] },
        { amount: "12.00", category: "Gifts", notes: "for Ana" },
      ],
    });
    await write("update_transactions", { filter: { wallet_id: wallet.id }, expected_count: 1, add_tags: ["tax-2026"], set_payee: "Market Hall" });

    const budget = (await call("create_budget", { name: "Food", amount: "300.00", currency: "USD", period: "month" })).budget;
    await write("update_budget", { budget_id: budget.id, amount: "350.00", alert_threshold: 90, categories: ["Groceries"], notes: "from March" });

    const goal = (await call("create_goal", { name: "Trip", currency: "USD", target_amount: "1000.00" })).goal;
    const goalUpdate = await write("update_goal", { goal_id: goal.id, target_date: "2026-12-31", target_amount: null, status: "paused" });
    // Its undo answers the fields it reverts, before (now) and after (once undone).
    await write("undo_change", { audit_id: goalUpdate.audit_id });

    const bill = (
      await call("create_bill_reminder", {
        name: "Gym",
        amount: "30.00",
        currency: "USD",
        schedule: { frequency: "monthly", start_date: "2026-01-05", day_of_month: 5 },
      })
    ).bill_reminder;
    await write("update_bill_reminder", {
      bill_reminder_id: bill.id,
      active: false,
      notice_days: 5,
      schedule: { frequency: "weekly", start_date: "2026-03-02" },
    });

    // A rule applied to the past files this one (the split transaction above is left to its parts).
    await call("create_transaction", { wallet_id: wallet.id, amount: "8.00", direction: "expense", payee: "Market stall", date: "2026-03-14" });
    const rule = (await call("save_rule", { value: "market", set_category: "Groceries" })).rule;
    await write("save_rule", { rule_id: rule.id, set_category: "Food", add_tags: ["weekly"], apply_to_existing: true, expected_count: 1 });
    await call("set_exchange_rate", { base: "EUR", quote: "USD", rate: "1.08", date: "2026-03-01" });
    await write("set_exchange_rate", { base: "EUR", quote: "USD", rate: "1.09", date: "2026-03-01" });
    await call("set_recurring_series", { series: "expense:USD:market stall", decision: "confirm" });
    await write("set_recurring_series", {
      series: "expense:USD:market stall",
      decision: "correct",
      payee: "Saturday market",
      amount_max: "20.00",
      day_from: 10,
    });

    await write("delete_rule", { rule_id: rule.id });
    await write("delete_bill_reminder", { bill_reminder_id: bill.id });
    await write("delete_goal", { goal_id: goal.id });
    await write("delete_budget", { budget_id: budget.id });
    await write("delete_transaction", { transaction_id: transaction.id });
    await write("delete_wallet", { wallet_id: savings.id });

    const kinds = new Set<string>();
    for (const { tool, result } of answers) {
      const changes = changesIn(result);
      expect(changes, tool).to.not.be.empty;
      for (const c of changes) {
        for (const value of [c.before, c.after]) kinds.add(kindOf(value));
        // The tool's own result validator (the one the server ran) on this change alone.
        expect(byName.get(tool)!.validateResult(withChanges(byName.get(tool)!, [c])), `${tool} ${c.field}`).to.equal(true);
      }
    }
    expect(new Set(answers.map((a) => a.tool)).size).to.equal(WITH_CHANGES.length);
    expect([...kinds].filter((k) => k !== "empty list").sort()).to.deep.equal(Object.keys(KINDS).sort());
  });
});
