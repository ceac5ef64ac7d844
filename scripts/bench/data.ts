/**
 * The benchmark's data set, generated deterministically (a seeded PRNG for every choice; ids and tokens
 * are random) as plain rows in the tables' own column names, so that the SQLite and Postgres seeders
 * insert exactly the same thing.
 *
 * One main user ("the heavy user") has `scale` transactions, and the rest of the world is the same at
 * every scale:
 *   - a recent window (the last RECENT_DAYS days up to today) with exactly `recentPerDay` transactions a
 *     day, so the month that get_transaction_summary reads and the page that list_transactions reads hold
 *     the same rows at 10k, 100k and 1M: what changes between scales is the history before it;
 *   - the older history (scale minus the recent window) spread evenly, in date order, over the
 *     `historyYears` before the window;
 *   - 4 wallets, 17 categories, tags on about a third of the rows, transfers as two legs, income and
 *     expenses, 8 budgets, 5 goals with monthly contributions, 20 bill reminders;
 *   - `tokens` tokens of the main user (the load rotates over them), and `otherUsers` users with a
 *     wallet, `otherTransactions` transactions, a budget and one token each.
 * Money is signed minor units (negative for expenses and outgoing transfer legs), as openrpc.json's
 * Transaction describes it.
 */
import { randomBytes } from "node:crypto";
import { seededRandom } from "../../src/random.js";
import { toRRule, type Schedule } from "../../src/domain/bills/schedule.js";
import { generateToken, hashToken } from "../../src/auth/token-format.js";
import { scopes as allScopes } from "../../generated/registry.js";

export const RECENT_DAYS = 120;

export interface DataSpec {
  /** Transactions of the main user. */
  scale: number;
  /** Today, YYYY-MM-DD (the recent window ends on it). */
  today: string;
  recentPerDay: number;
  historyYears: number;
  tokens: number;
  otherUsers: number;
  otherTransactions: number;
  pepper: string;
  seed: number;
}

export type Row = Record<string, string | number | boolean | null>;

/** A stream of rows per table, in insert order (parents first). */
export interface TableRows {
  table: string;
  rows: Iterable<Row>;
}

export interface Fixture {
  mainUserId: string;
  /** The main user's wallets: [checking, credit card, cash, savings]. */
  walletIds: string[];
  mainTokens: string[];
  otherTokens: string[];
  /** The other users' wallets, in the order of otherTokens. */
  otherWalletIds: string[];
  budgetIds: string[];
  /** The last complete calendar month before today: what the summary and the page read. */
  benchMonth: { from: string; to: string };
  recentFrom: string;
  historyFrom: string;
  /** Main-user transactions, counted as generated (transfers count two legs). */
  mainTransactions: number;
}

// ---------------------------------------------------------------------------------------------
// Randomness

/** The one seeded generator (src/random.ts). */
export const mulberry32 = seededRandom;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Random prefixed ids like src/db/ids.ts makes (22 base62 characters), drawn from a large random pool. */
class IdMaker {
  private pool = Buffer.alloc(0);
  private at = 0;
  next(prefix: string): string {
    if (this.at + 22 > this.pool.length) {
      this.pool = randomBytes(1 << 20);
      this.at = 0;
    }
    let out = `${prefix}_`;
    for (let i = 0; i < 22; i++) out += BASE62[this.pool[this.at++]! % 62];
    return out;
  }
}

// ---------------------------------------------------------------------------------------------
// Dates

const DAY_MS = 86_400_000;
export const dayNumber = (d: string): number => Date.parse(`${d}T00:00:00Z`) / DAY_MS;
export const dayString = (n: number): string => new Date(n * DAY_MS).toISOString().slice(0, 10);

function previousMonth(today: string): { from: string; to: string } {
  const [y, m] = today.split("-").map(Number) as [number, number];
  const first = new Date(Date.UTC(y, m - 2, 1));
  const last = new Date(Date.UTC(y, m - 1, 0));
  return { from: first.toISOString().slice(0, 10), to: last.toISOString().slice(0, 10) };
}

// ---------------------------------------------------------------------------------------------
// Vocabulary

interface Category {
  name: string;
  weight: number;
  payees: string[];
  min: number;
  max: number;
}

const EXPENSES: Category[] = [
  { name: "Groceries", weight: 22, payees: ["Whole Foods", "Trader Joe's", "Safeway", "Costco", "Aldi", "Farmers Market"], min: 800, max: 18000 },
  { name: "Dining", weight: 14, payees: ["Blue Bottle Coffee", "Chipotle", "Sushi Ran", "Pizza Place", "Taqueria", "Ramen Bar"], min: 400, max: 9000 },
  { name: "Transport", weight: 9, payees: ["Uber", "Lyft", "Metro Transit", "City Parking"], min: 250, max: 6000 },
  { name: "Fuel", weight: 6, payees: ["Shell", "Chevron", "BP"], min: 2500, max: 9000 },
  { name: "Shopping", weight: 9, payees: ["Amazon", "Target", "IKEA", "Best Buy", "Etsy"], min: 500, max: 25000 },
  { name: "Entertainment", weight: 5, payees: ["Netflix", "Spotify", "AMC Theatres", "Steam"], min: 500, max: 8000 },
  { name: "Health", weight: 4, payees: ["CVS Pharmacy", "Walgreens", "Dr. Patel"], min: 1000, max: 20000 },
  { name: "Utilities", weight: 4, payees: ["PG&E", "Comcast", "City Water"], min: 3000, max: 25000 },
  { name: "Rent", weight: 1, payees: ["Oak Street Properties"], min: 180000, max: 220000 },
  { name: "Travel", weight: 3, payees: ["United Airlines", "Airbnb", "Marriott", "Hertz"], min: 5000, max: 90000 },
  { name: "Subscriptions", weight: 4, payees: ["iCloud", "GitHub", "New York Times", "Adobe"], min: 299, max: 5999 },
  { name: "Insurance", weight: 1, payees: ["State Farm", "Kaiser"], min: 9000, max: 40000 },
  { name: "Gifts", weight: 2, payees: ["Etsy", "Amazon", "Local Florist"], min: 1500, max: 15000 },
  { name: "Education", weight: 2, payees: ["Coursera", "Bookshop", "Udemy"], min: 1000, max: 30000 },
];
const INCOMES: Category[] = [
  { name: "Salary", weight: 6, payees: ["Acme Corp Payroll"], min: 350000, max: 450000 },
  { name: "Interest", weight: 2, payees: ["Savings Bank"], min: 100, max: 5000 },
  { name: "Refunds", weight: 2, payees: ["Amazon", "Target", "United Airlines"], min: 500, max: 20000 },
];
const TAGS = ["food", "coffee", "work", "family", "reimbursable", "online", "subscription", "kids", "weekend", "health", "car", "home"];
const DESCRIPTIONS = [null, null, null, "Weekly shop", "Lunch with Sam", "Monthly", "Birthday present", "Train to work", "Team dinner", "Refill"];

function picker<T extends { weight: number }>(items: T[]): (r: number) => T {
  const total = items.reduce((s, i) => s + i.weight, 0);
  return (r) => {
    let x = r * total;
    for (const i of items) {
      x -= i.weight;
      if (x < 0) return i;
    }
    return items[items.length - 1]!;
  };
}

// ---------------------------------------------------------------------------------------------
// The world

function stamp(day: string): string {
  return `${day}T12:00:00.000Z`;
}

export function buildData(spec: DataSpec): { fixture: Fixture; tables: TableRows[] } {
  const ids = new IdMaker();
  const now = new Date(`${spec.today}T12:00:00.000Z`);
  const nowIso = now.toISOString();
  const tokenExpires = new Date(now.getTime() + 365 * DAY_MS).toISOString();
  const scopesJson = JSON.stringify([...allScopes].sort());
  const todayN = dayNumber(spec.today);
  const recentFromN = todayN - RECENT_DAYS + 1;
  const historyFromN = recentFromN - Math.round(spec.historyYears * 365.25);
  const recentCount = RECENT_DAYS * spec.recentPerDay;
  if (spec.scale < recentCount * 2)
    throw new Error(
      `scale ${spec.scale} is too small for ${spec.recentPerDay} transactions a day over ${RECENT_DAYS} days (needs at least ${recentCount * 2})`,
    );
  const olderCount = spec.scale - recentCount;
  const historyFrom = dayString(historyFromN);
  const created = stamp(historyFrom);

  const mainUserId = ids.next("usr");
  const walletDefs = [
    { name: "Checking", type: "checking", weight: 45, opening: 250000 },
    { name: "Credit card", type: "credit_card", weight: 35, opening: 0 },
    { name: "Cash", type: "cash", weight: 15, opening: 20000 },
    { name: "Savings", type: "savings", weight: 5, opening: 1000000 },
  ].map((w) => ({ ...w, id: ids.next("wal") }));
  const walletIds = walletDefs.map((w) => w.id);
  const pickWallet = picker(walletDefs);
  const pickExpense = picker(EXPENSES);
  const pickIncome = picker(INCOMES);

  const users: Row[] = [];
  const userRow = (id: string, n: number): Row => ({
    id,
    email: `bench-${n}@example.test`,
    email_normalized: `bench-${n}@example.test`,
    password_hash: "scrypt$bench$none",
    timezone: "UTC",
    default_currency: "USD",
    created_at: created,
    updated_at: created,
  });
  users.push(userRow(mainUserId, 0));

  const tokens: Row[] = [];
  const tokenRow = (userId: string, token: string, name: string): Row => ({
    id: ids.next("tok"),
    user_id: userId,
    name,
    token_hash: hashToken(token, spec.pepper),
    scopes: scopesJson,
    created_at: nowIso,
    expires_at: tokenExpires,
    revoked_at: null,
    last_used_at: null,
  });
  const mainTokens: string[] = [];
  for (let i = 0; i < spec.tokens; i++) {
    const t = generateToken();
    mainTokens.push(t);
    tokens.push(tokenRow(mainUserId, t, `bench ${i}`));
  }

  const wallets: Row[] = walletDefs.map((w) => ({
    id: w.id,
    user_id: mainUserId,
    name: w.name,
    name_normalized: w.name.toLowerCase(),
    type: w.type,
    currency: "USD",
    opening_balance_minor: w.opening,
    opening_date: historyFrom,
    archived: false,
    notes: null,
    created_at: created,
    updated_at: created,
  }));

  // Other users: small, recent histories.
  const rnd0 = mulberry32(spec.seed ^ 0x5eed);
  const otherTokens: string[] = [];
  const others: { userId: string; walletId: string }[] = [];
  for (let n = 1; n <= spec.otherUsers; n++) {
    const userId = ids.next("usr");
    const walletId = ids.next("wal");
    users.push(userRow(userId, n));
    const t = generateToken();
    otherTokens.push(t);
    tokens.push(tokenRow(userId, t, "chatbot"));
    wallets.push({
      id: walletId,
      user_id: userId,
      name: "Checking",
      name_normalized: "checking",
      type: "checking",
      currency: "USD",
      opening_balance_minor: Math.floor(rnd0() * 500000),
      opening_date: dayString(todayN - 400),
      archived: false,
      notes: null,
      created_at: created,
      updated_at: created,
    });
    others.push({ userId, walletId });
  }

  const tags: Row[] = [];
  let mainTransactions = 0;
  const transactionRows = function* (): Generator<Row> {
    const rnd = mulberry32(spec.seed);
    let externalSeq = 0;
    const txn = (
      userId: string,
      walletId: string,
      day: string,
      amount: number,
      direction: string,
      category: string | null,
      payee: string | null,
      extra: Partial<Row> = {},
    ): Row => {
      const id = ids.next("txn");
      const r = rnd();
      if (r < 0.3) {
        // About 30 % of rows have a tag, 8 % two different ones.
        const a = Math.floor(rnd() * TAGS.length);
        tags.push({ transaction_id: id, user_id: userId, tag: TAGS[a]! });
        if (r < 0.08) tags.push({ transaction_id: id, user_id: userId, tag: TAGS[(a + 1 + Math.floor(rnd() * (TAGS.length - 1))) % TAGS.length]! });
      }
      return {
        id,
        user_id: userId,
        wallet_id: walletId,
        date: day,
        amount_minor: amount,
        currency: "USD",
        direction,
        payee,
        description: DESCRIPTIONS[Math.floor(rnd() * DESCRIPTIONS.length)] ?? null,
        category,
        notes: rnd() < 0.02 ? "Check the receipt" : null,
        external_id: rnd() < 0.2 ? `imp-${++externalSeq}` : null,
        transfer_id: null,
        counterpart_wallet_id: null,
        created_at: stamp(day),
        updated_at: stamp(day),
        ...extra,
      };
    };
    const oneMain = function* (day: string): Generator<Row> {
      const r = rnd();
      if (r < 0.03) {
        // A transfer: two legs, checking → savings or checking → credit card.
        const to = rnd() < 0.5 ? walletIds[3]! : walletIds[1]!;
        const amount = 5000 + Math.floor(rnd() * 95000);
        const transferId = ids.next("trf");
        mainTransactions += 2;
        yield txn(mainUserId, walletIds[0]!, day, -amount, "transfer", null, null, { transfer_id: transferId, counterpart_wallet_id: to });
        yield txn(mainUserId, to, day, amount, "transfer", null, null, { transfer_id: transferId, counterpart_wallet_id: walletIds[0]! });
        return;
      }
      const income = r < 0.08;
      const cat = income ? pickIncome(rnd()) : pickExpense(rnd());
      const amount = cat.min + Math.floor(rnd() * rnd() * (cat.max - cat.min));
      const wallet = income ? walletIds[0]! : pickWallet(rnd()).id;
      mainTransactions += 1;
      yield txn(
        mainUserId,
        wallet,
        day,
        income ? amount : -amount,
        income ? "income" : "expense",
        cat.name,
        cat.payees[Math.floor(rnd() * cat.payees.length)]!,
      );
    };

    // Older history: olderCount rows spread evenly over [historyFrom, recentFrom), in date order.
    const olderDays = recentFromN - historyFromN;
    let emitted = 0;
    for (let i = 0; i < olderDays && emitted < olderCount; i++) {
      const day = dayString(historyFromN + i);
      const n = Math.floor(((i + 1) * olderCount) / olderDays) - Math.floor((i * olderCount) / olderDays);
      for (let k = 0; k < n && emitted < olderCount; k++) {
        for (const row of oneMain(day)) {
          emitted++;
          yield row;
        }
      }
    }
    // The recent window: exactly recentPerDay a day (a transfer's two legs count as two).
    for (let d = recentFromN; d <= todayN; d++) {
      const day = dayString(d);
      let k = 0;
      while (k < spec.recentPerDay) {
        for (const row of oneMain(day)) {
          k++;
          yield row;
        }
      }
    }
    // Other users' small histories over the last year.
    for (const o of others) {
      for (let k = 0; k < spec.otherTransactions; k++) {
        const day = dayString(todayN - Math.floor(rnd() * 365));
        const cat = pickExpense(rnd());
        yield txn(o.userId, o.walletId, day, -(cat.min + Math.floor(rnd() * (cat.max - cat.min) * 0.3)), "expense", cat.name, cat.payees[0]!);
      }
    }
  };

  // Budgets: the main user's 8, and one for each other user.
  const budgets: Row[] = [];
  const budgetIds: string[] = [];
  const budget = (
    userId: string,
    name: string,
    amount: number,
    scope: { categories?: string[]; tags?: string[]; wallet_ids?: string[] },
    period = "month",
  ): Row => {
    const id = ids.next("bud");
    if (userId === mainUserId) budgetIds.push(id);
    return {
      id,
      user_id: userId,
      name,
      name_normalized: name.toLowerCase(),
      amount_minor: amount,
      currency: "USD",
      period,
      interval: 1,
      anchor_date: dayString(historyFromN - (Number(historyFrom.slice(8, 10)) - 1)),
      categories: JSON.stringify(scope.categories ?? []),
      tags: JSON.stringify(scope.tags ?? []),
      wallet_ids: JSON.stringify(scope.wallet_ids ?? []),
      start_date: historyFrom,
      end_date: null,
      rollover: "none",
      alert_threshold: 80,
      notes: null,
      created_at: created,
      updated_at: created,
    };
  };
  budgets.push(
    budget(mainUserId, "Groceries", 60000, { categories: ["Groceries"] }),
    budget(mainUserId, "Eating out", 30000, { categories: ["Dining"] }),
    budget(mainUserId, "Getting around", 25000, { categories: ["Transport", "Fuel"] }),
    budget(mainUserId, "Fun", 20000, { categories: ["Entertainment", "Subscriptions"] }),
    budget(mainUserId, "Shopping", 40000, { categories: ["Shopping"] }),
    budget(mainUserId, "Coffee", 8000, { tags: ["coffee"] }),
    budget(mainUserId, "Card spending", 150000, { wallet_ids: [walletIds[1]!] }),
    budget(mainUserId, "Everything", 600000, {}),
  );
  for (const o of others) budgets.push(budget(o.userId, "Groceries", 50000, { categories: ["Groceries"] }));

  // Goals with monthly contributions over the last two years.
  const goals: Row[] = [];
  const contributions: Row[] = [];
  const goalDefs = [
    { name: "Emergency fund", target: 1500000 },
    { name: "Vacation 2027", target: 400000 },
    { name: "New laptop", target: 250000 },
    { name: "House deposit", target: 6000000 },
    { name: "Rainy day", target: null },
  ];
  for (const [gi, g] of goalDefs.entries()) {
    const id = ids.next("gol");
    goals.push({
      id,
      user_id: mainUserId,
      name: g.name,
      name_normalized: g.name.toLowerCase(),
      target_minor: g.target,
      currency: "USD",
      target_date: g.target ? dayString(todayN + 365 + gi * 90) : null,
      wallet_id: walletIds[3]!,
      status: "active",
      achieved_at: null,
      notes: null,
      created_at: created,
      updated_at: created,
    });
    for (let m = 24; m >= 1; m--) {
      const day = dayString(todayN - m * 30);
      contributions.push({
        id: ids.next("gct"),
        user_id: mainUserId,
        goal_id: id,
        amount_minor: 10000 + gi * 5000,
        date: day,
        note: null,
        transaction_id: null,
        created_at: stamp(day),
      });
    }
  }

  // Bill reminders: stored schedule JSON + RRULE, as the tools store them.
  const bills: Row[] = [];
  const start = dayString(todayN - 400);
  const billDefs: { name: string; payee: string; amount?: number; min?: number; max?: number; category: string; schedule: Schedule; autopay?: boolean }[] = [
    { name: "Rent", payee: "Oak Street Properties", amount: 200000, category: "Rent", schedule: { frequency: "monthly", start_date: start, day_of_month: 1 } },
    {
      name: "Electricity",
      payee: "PG&E",
      min: 6000,
      max: 18000,
      category: "Utilities",
      schedule: { frequency: "monthly", start_date: start, day_of_month: 15 },
    },
    {
      name: "Internet",
      payee: "Comcast",
      amount: 7999,
      category: "Utilities",
      schedule: { frequency: "monthly", start_date: start, day_of_month: 20 },
      autopay: true,
    },
    {
      name: "Water",
      payee: "City Water",
      min: 3000,
      max: 9000,
      category: "Utilities",
      schedule: { frequency: "quarterly", start_date: start, day_of_month: 10 },
    },
    {
      name: "Netflix",
      payee: "Netflix",
      amount: 1549,
      category: "Subscriptions",
      schedule: { frequency: "monthly", start_date: start, day_of_month: 3 },
      autopay: true,
    },
    {
      name: "Spotify",
      payee: "Spotify",
      amount: 1199,
      category: "Subscriptions",
      schedule: { frequency: "monthly", start_date: start, day_of_month: 8 },
      autopay: true,
    },
    {
      name: "iCloud",
      payee: "iCloud",
      amount: 299,
      category: "Subscriptions",
      schedule: { frequency: "monthly", start_date: start, day_of_month: 31 },
      autopay: true,
    },
    {
      name: "GitHub",
      payee: "GitHub",
      amount: 400,
      category: "Subscriptions",
      schedule: { frequency: "monthly", start_date: start, day_of_month: -1 },
      autopay: true,
    },
    { name: "Car insurance", payee: "State Farm", amount: 64000, category: "Insurance", schedule: { frequency: "yearly", start_date: start } },
    {
      name: "Health insurance",
      payee: "Kaiser",
      amount: 32000,
      category: "Insurance",
      schedule: { frequency: "monthly", start_date: start, day_of_month: 28 },
    },
    { name: "Gym", payee: "City Gym", amount: 4500, category: "Health", schedule: { frequency: "monthly", start_date: start, day_of_month: 5 } },
    { name: "Cleaner", payee: "Maria", amount: 9000, category: "Home", schedule: { frequency: "biweekly", start_date: start, weekday: "fri" } },
    { name: "Allowance", payee: "Kids", amount: 2000, category: "Family", schedule: { frequency: "weekly", start_date: start, weekday: "sun" } },
    {
      name: "Newspaper",
      payee: "New York Times",
      amount: 1700,
      category: "Subscriptions",
      schedule: { frequency: "monthly", start_date: start, day_of_month: 12 },
    },
    { name: "Phone", payee: "T-Mobile", amount: 7000, category: "Utilities", schedule: { frequency: "monthly", start_date: start, day_of_month: 22 } },
    {
      name: "Credit card",
      payee: "Card issuer",
      min: 20000,
      max: 300000,
      category: "Debt",
      schedule: { frequency: "monthly", start_date: start, day_of_month: 25 },
    },
    {
      name: "Property tax",
      payee: "County",
      amount: 350000,
      category: "Taxes",
      schedule: { frequency: "yearly", start_date: dayString(todayN - 300), day_of_month: 10 },
    },
    {
      name: "Domain name",
      payee: "Registrar",
      amount: 1500,
      category: "Subscriptions",
      schedule: { frequency: "yearly", start_date: dayString(todayN - 200) },
    },
    { name: "Dentist", payee: "Dr. Lee", amount: 12000, category: "Health", schedule: { frequency: "once", start_date: dayString(todayN + 17) } },
    {
      name: "Old storage unit",
      payee: "U-Store",
      amount: 9900,
      category: "Home",
      schedule: { frequency: "monthly", start_date: start, day_of_month: 2, end_date: dayString(todayN - 60) },
    },
  ];
  for (const b of billDefs) {
    bills.push({
      id: ids.next("bil"),
      user_id: mainUserId,
      name: b.name,
      payee: b.payee,
      amount_minor: b.amount ?? null,
      amount_min_minor: b.min ?? null,
      amount_max_minor: b.max ?? null,
      currency: "USD",
      wallet_id: walletIds[0]!,
      category: b.category,
      schedule: JSON.stringify(b.schedule),
      rrule: toRRule(b.schedule),
      start_date: b.schedule.start_date,
      notice_days: 3,
      autopay: b.autopay ?? false,
      active: true,
      notes: null,
      created_at: created,
      updated_at: created,
    });
  }

  const fixture: Fixture = {
    mainUserId,
    walletIds,
    mainTokens,
    otherTokens,
    otherWalletIds: others.map((o) => o.walletId),
    budgetIds,
    benchMonth: previousMonth(spec.today),
    recentFrom: dayString(recentFromN),
    historyFrom,
    get mainTransactions() {
      return mainTransactions;
    },
  };
  return {
    fixture,
    tables: [
      { table: "users", rows: users },
      { table: "mcp_tokens", rows: tokens },
      { table: "wallets", rows: wallets },
      { table: "transactions", rows: { [Symbol.iterator]: transactionRows } },
      // Filled while the transactions are generated: must come after them.
      { table: "transaction_tags", rows: { [Symbol.iterator]: () => tags[Symbol.iterator]() } },
      { table: "budgets", rows: budgets },
      { table: "goals", rows: goals },
      { table: "goal_contributions", rows: contributions },
      { table: "bill_reminders", rows: bills },
    ],
  };
}
