/**
 * The demo person: four months of a plausible financial life in EUR (salary, rent, groceries, eating
 * out, transport, subscriptions, savings transfers) and USD (a US account with freelance income and a
 * trip to New York), budgets, a savings goal with contributions, and bills. Written through the tools
 * (the service's dispatch: the same validation, write pipeline and audit as a chatbot's calls), so the
 * demo shows exactly what the tools make. Amounts come from a seeded generator: every demo is the same
 * life, shifted to end today.
 */
import { randomUUID } from "node:crypto";
import type { Caller } from "../context.js";
import { seededRandom } from "../random.js";
import { monthStart, plusDays } from "../calendar/days.js";
import { todayInTimeZone } from "../calendar/time-zones.js";
import type { Dispatch } from "../rpc/dispatch.js";

export const DEMO_EMAIL = "alex.demo@example.com";
export const DEMO_TIMEZONE = "Europe/Berlin";
export const DEMO_CURRENCY = "EUR";
const MONTHS = 4;

function withDay(monthFirst: string, dayOfMonth: number): string {
  return `${monthFirst.slice(0, 8)}${String(dayOfMonth).padStart(2, "0")}`;
}

export interface DemoSummary {
  wallets: number;
  transactions: number;
  budgets: number;
  goals: number;
  bills: number;
  from: string;
  to: string;
}

/** `newKey` makes the idempotency keys (npm run surface passes seeded ones, so its measure is repeatable). */
export async function seedDemoPerson(dispatch: Dispatch, caller: Caller, now = new Date(), newKey: () => string = randomUUID): Promise<DemoSummary> {
  const random = seededRandom(20261124);
  const between = (lo: number, hi: number) => (lo + random() * (hi - lo)).toFixed(2);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const call = (tool: string, params: Record<string, unknown>) =>
    dispatch(
      tool,
      { ...params, ...(tool.startsWith("create_") || tool === "add_goal_funds" ? { idempotency_key: newKey() } : {}) },
      { caller, requestId: `demo-seed-${randomUUID()}` },
    ) as Promise<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any -- the seed reads its own answers loosely

  const today = todayInTimeZone(DEMO_TIMEZONE, now);
  const first = monthStart(today, -(MONTHS - 1));
  const opening = plusDays(first, -1);
  const wallet = async (name: string, type: string, currency: string, balance: string) =>
    ((await call("create_wallet", { name, type, currency, opening_balance: balance, opening_date: opening })).wallet as { id: string }).id;
  const checking = await wallet("Everyday checking", "checking", "EUR", "2140.00");
  const savings = await wallet("Savings", "savings", "EUR", "3500.00");
  const card = await wallet("Credit card", "credit_card", "EUR", "0.00");
  const usd = await wallet("US account", "checking", "USD", "1200.00");

  let transactions = 0;
  const tx = async (date: string, walletId: string, amount: string, direction: string, fields: Record<string, unknown> = {}) => {
    if (date > today) return;
    await call("create_transaction", { wallet_id: walletId, date, amount, direction, ...fields });
    transactions++;
  };

  for (let m = MONTHS - 1; m >= 0; m--) {
    const month = monthStart(today, -m);
    await tx(withDay(month, 1), checking, "1150.00", "expense", { payee: "Hausverwaltung Krüger", category: "Rent", tags: ["home"] });
    await tx(withDay(month, 1), checking, "49.00", "expense", { payee: "Deutsche Bahn", category: "Transport", description: "Deutschlandticket" });
    await tx(withDay(month, 3), checking, "29.90", "expense", { payee: "FitX", category: "Health", tags: ["subscription"] });
    await tx(withDay(month, 5), checking, between(58, 96), "expense", { payee: "Stadtwerke", category: "Utilities", description: "Electricity" });
    await tx(withDay(month, 10), checking, "39.99", "expense", { payee: "Telekom", category: "Utilities", tags: ["subscription"], description: "Internet" });
    await tx(withDay(month, 15), card, "13.99", "expense", { payee: "Netflix", category: "Entertainment", tags: ["subscription"] });
    await tx(withDay(month, 25), checking, "3850.00", "income", { payee: "Nordlicht Software GmbH", category: "Salary" });
    await tx(withDay(month, 26), checking, "400.00", "transfer", { to_wallet_id: savings, description: "Monthly saving" });
    await tx(withDay(month, 27), checking, "300.00", "transfer", { to_wallet_id: card, description: "Credit card payment" });
    // Groceries every three or four days, eating out about six times a month, a taxi now and then.
    for (let d = 2; d <= 28; d += 3 + Math.floor(random() * 2)) {
      await tx(withDay(month, d), pick([checking, checking, card]), between(18, 96), "expense", {
        payee: pick(["REWE", "Lidl", "Aldi Süd", "Edeka", "Wochenmarkt"]),
        category: "Groceries",
      });
    }
    for (let i = 0; i < 6; i++) {
      const d = 1 + Math.floor(random() * 28);
      await tx(withDay(month, d), card, between(9, 68), "expense", {
        payee: pick(["Café Lotte", "Trattoria Da Nino", "Sushi Bar Ume", "Burgermeister", "Thai Orchid"]),
        category: "Eating out",
        ...(random() < 0.3 ? { tags: ["friends"] } : {}),
      });
    }
    if (random() < 0.7)
      await tx(withDay(month, 8 + Math.floor(random() * 15)), card, between(11, 34), "expense", {
        payee: "FreeNow",
        category: "Transport",
        description: "Taxi",
      });
    // USD: a freelance client pays every other month.
    if (m % 2 === 0) await tx(withDay(month, 12), usd, "750.00", "income", { payee: "Harbor Labs Inc.", category: "Freelance", tags: ["side-project"] });
  }

  // A week in New York two months ago, paid from the US account.
  const trip = withDay(monthStart(today, -Math.min(2, MONTHS - 1)), 14);
  const nyc = [
    ["Pod Times Square", "Travel", "612.40", "Hotel, 4 nights"],
    ["MTA", "Transport", "34.00", "OMNY fares"],
    ["Joe's Pizza", "Eating out", "18.75", null],
    ["The Met", "Entertainment", "30.00", "Museum"],
    ["Katz's Delicatessen", "Eating out", "42.10", null],
    ["Trader Joe's", "Groceries", "27.64", null],
    ["Uber", "Transport", "48.90", "Airport"],
  ] as const;
  for (const [i, [payee, category, amount, description]] of nyc.entries()) {
    await tx(plusDays(trip, i), usd, amount, "expense", { payee, category, tags: ["trip-nyc"], ...(description ? { description } : {}) });
  }

  const budget = (name: string, amount: string, currency: string, period: string, categories: string[], extra: Record<string, unknown> = {}) =>
    call("create_budget", { name, amount, currency, period, categories, start_date: first, anchor_date: first, ...extra });
  await budget("Groceries", "420.00", "EUR", "month", ["Groceries"]);
  await budget("Eating out", "180.00", "EUR", "month", ["Eating out"], { alert_threshold: 75 });
  await budget("Getting around", "110.00", "EUR", "month", ["Transport"], { rollover: "carry_unspent" });
  await budget("Travel (USD)", "1000.00", "USD", "quarter", ["Travel", "Eating out", "Transport"], { wallet_ids: [usd] });

  const goal = (
    await call("create_goal", {
      name: "Emergency fund",
      target_amount: "10000.00",
      currency: "EUR",
      target_date: `${Number(today.slice(0, 4)) + 1}-06-30`,
      wallet_id: savings,
    })
  ).goal as { id: string };
  for (let m = MONTHS - 1; m >= 0; m--) {
    const date = withDay(monthStart(today, -m), 26);
    if (date <= today) await call("add_goal_funds", { goal_id: goal.id, amount: "400.00", date, note: "Monthly saving" });
  }

  const bill = (name: string, fields: Record<string, unknown>) => call("create_bill_reminder", { name, ...fields });
  await bill("Rent", {
    payee: "Hausverwaltung Krüger",
    amount: "1150.00",
    currency: "EUR",
    wallet_id: checking,
    category: "Rent",
    autopay: true,
    schedule: { frequency: "monthly", start_date: first, day_of_month: 1 },
  });
  await bill("Electricity", {
    payee: "Stadtwerke",
    amount_min: "55.00",
    amount_max: "100.00",
    currency: "EUR",
    wallet_id: checking,
    category: "Utilities",
    schedule: { frequency: "monthly", start_date: first, day_of_month: 5 },
  });
  await bill("Internet", {
    payee: "Telekom",
    amount: "39.99",
    currency: "EUR",
    wallet_id: checking,
    category: "Utilities",
    autopay: true,
    schedule: { frequency: "monthly", start_date: first, day_of_month: 10 },
  });
  await bill("Car insurance", {
    payee: "HUK-Coburg",
    amount: "412.80",
    currency: "EUR",
    wallet_id: checking,
    category: "Insurance",
    notice_days: 14,
    schedule: { frequency: "yearly", start_date: withDay(monthStart(today, 1), 1) },
  });
  await bill("Domain renewal", {
    payee: "Namecheap",
    amount: "14.98",
    currency: "USD",
    wallet_id: usd,
    category: "Freelance",
    schedule: { frequency: "yearly", start_date: plusDays(today, 20) },
  });

  return { wallets: 4, transactions, budgets: 4, goals: 1, bills: 5, from: first, to: today };
}
