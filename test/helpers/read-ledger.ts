/**
 * The ledger the read tools are measured on (test/writes/read-round-trips.test.ts counts their statements,
 * test/writes/read-plans.test.ts reads their plans): a USD wallet with a dozen March 2026 expenses of
 * three payees, a monthly budget over their category, and a goal with two contributions (its progress
 * shows the latest). Written through the tools, as any client would; the test server's clock is READ_NOW.
 * Each read tool is called with the spec's own example arguments, the ids replaced by these.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { OPENRPC_PATH } from "../../src/app.js";
import type { TestServer } from "./server.js";

export const READ_NOW = new Date("2026-03-20T12:00:00Z");

export interface ReadLedger {
  wallet: string;
  budget: string;
  goal: string;
}

export async function seedReadLedger(server: TestServer, token: string): Promise<ReadLedger> {
  const call = (tool: string, params: Record<string, unknown>) => server.call(tool, { ...params, idempotency_key: randomUUID() }, token);
  const wallet = (await call("create_wallet", { name: "Checking", type: "checking", currency: "USD" })).wallet.id as string;
  for (let i = 0; i < 12; i++) {
    const payee = ["Blue Bottle", "Rent Co", "Grocer"][i % 3];
    const date = `2026-03-${String(1 + i).padStart(2, "0")}`;
    await call("create_transaction", { wallet_id: wallet, date, amount: `${10 + i}.40`, direction: "expense", payee, category: "Dining", tags: ["food"] });
  }
  const budget = (
    await call("create_budget", { name: "Dining out", amount: "150.00", currency: "USD", period: "month", categories: ["Dining"], start_date: "2026-03-01" })
  ).budget.id as string;
  const goal = (await call("create_goal", { name: "Japan trip", target_amount: "4000.00", currency: "USD" })).goal.id as string;
  for (const amount of ["100.00", "50.00"]) await call("add_goal_funds", { goal_id: goal, amount });
  return { wallet, budget, goal };
}

const SPEC = JSON.parse(readFileSync(OPENRPC_PATH, "utf8")) as { methods: { name: string; examples?: { params?: { name: string; value: unknown }[] }[] }[] };

/** The arguments of a tool's first example in the spec, with the ledger's wallet, budget and goal in place of the example's ids. */
export function exampleParams(tool: string, ledger: ReadLedger): Record<string, unknown> {
  const example = SPEC.methods.find((m) => m.name === tool)?.examples?.[0];
  const params: Record<string, unknown> = Object.fromEntries((example?.params ?? []).map((p) => [p.name, p.value]));
  if ("budget_id" in params) params.budget_id = ledger.budget;
  if ("goal_id" in params) params.goal_id = ledger.goal;
  if ("wallet_id" in params) params.wallet_id = ledger.wallet;
  return params;
}
