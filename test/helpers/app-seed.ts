/**
 * A person's half year for the MCP Apps' tests and screenshots: three EUR wallets (a checking account,
 * savings, a credit card) opened in May 2026, salary and rent every month, groceries, dining and
 * transport from September to November, and three monthly budgets. Written through the tools (direct
 * JSON-RPC calls), like any client; "today" is APPS_TODAY (the test server's clock).
 */
import { randomUUID } from "node:crypto";
import type { TestServer } from "./server.js";

export const APPS_NOW = new Date("2026-11-20T12:00:00Z");

export interface AppSeed {
  checking: string;
  card: string;
}

export async function seedFinances(server: TestServer, token: string): Promise<AppSeed> {
  const call = (tool: string, params: Record<string, unknown>) => server.call(tool, { ...params, idempotency_key: randomUUID() }, token);
  const wallet = async (name: string, type: string, opening: string) =>
    (await call("create_wallet", { name, type, currency: "EUR", opening_balance: opening, opening_date: "2026-05-01" })).wallet.id as string;
  const checking = await wallet("Everyday", "checking", "2400.00");
  const savings = await wallet("Savings", "savings", "6000.00");
  const card = await wallet("Visa", "credit_card", "-300.00");
  const spend = (wallet_id: string, date: string, amount: string, category: string, payee: string) =>
    call("create_transaction", { wallet_id, date, amount, direction: "expense", category, payee });

  for (const month of ["05", "06", "07", "08", "09", "10", "11"]) {
    await call("create_transaction", {
      wallet_id: checking,
      date: `2026-${month}-01`,
      amount: "3150.00",
      direction: "income",
      category: "Salary",
      payee: "Acme GmbH",
    });
    await spend(checking, `2026-${month}-03`, "1100.00", "Rent", "Hausverwaltung Kranz");
    await call("create_transaction", { wallet_id: checking, date: `2026-${month}-05`, amount: "600.00", direction: "transfer", to_wallet_id: savings });
  }
  const months: [string, [string, string, string, string][]][] = [
    [
      "09",
      [
        ["04", "286.40", "Groceries", "Rewe"],
        ["12", "64.00", "Dining", "Trattoria Roma"],
        ["15", "49.00", "Transport", "BVG"],
        ["22", "118.90", "Shopping", "Zalando"],
      ],
    ],
    [
      "10",
      [
        ["03", "301.75", "Groceries", "Rewe"],
        ["10", "92.50", "Dining", "Sushi Bar"],
        ["15", "49.00", "Transport", "BVG"],
        ["20", "39.99", "Shopping", "Thalia"],
      ],
    ],
    [
      "11",
      [
        ["02", "248.30", "Groceries", "Rewe"],
        ["08", "131.20", "Dining", "Trattoria Roma"],
        ["15", "49.00", "Transport", "BVG"],
        ["17", "84.00", "Health", "Apotheke"],
      ],
    ],
  ];
  for (const [month, rows] of months) for (const [day, amount, category, payee] of rows) await spend(card, `2026-${month}-${day}`, amount, category, payee);

  for (const [name, amount, categories] of [
    ["Groceries", "400.00", ["Groceries"]],
    ["Eating out", "120.00", ["Dining"]],
    ["Getting around", "60.00", ["Transport"]],
  ] as const)
    await call("create_budget", { name, amount, currency: "EUR", period: "month", categories, start_date: "2026-09-01" });
  return { checking, card };
}

/** A bank statement for the import preview: two new rows, and a coffee already typed in by hand (a possible duplicate). */
export const APPS_STATEMENT = ["Date,Payee,Amount", "2026-11-18,Corner Cafe,-4.20", "2026-11-18,Bakery Hofmann,-6.80", "2026-11-19,Stadtwerke,-72.00"].join(
  "\n",
);
