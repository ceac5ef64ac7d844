/**
 * Test fixture for the ledger: a seeded random data set recorded through the real tools, and a model of
 * it kept by the test itself, from which balances and summaries are computed independently of the server
 * (its own decimal parsing, BigInt sums, its own grouping). Nothing here imports server code.
 */
import { randomUUID } from "node:crypto";
import { seededRandom } from "../../src/random.js";
import type { Knex } from "knex";
import type { TestServer, TestUser } from "../helpers/server.js";

/** The one seeded generator (src/random.ts): the same seed gives the same data set on both engines. */
export const seeded = seededRandom;

export const key = (): string => randomUUID();

export const EXPONENT: Record<string, number> = { USD: 2, EUR: 2, JPY: 0, KWD: 3 };

/** "12.5" → 1250n for exponent 2; the test's own parser (string digits only, never a float). */
export function minorOf(decimal: string, exponent: number): bigint {
  const negative = decimal.startsWith("-");
  const [int = "0", frac = ""] = (negative ? decimal.slice(1) : decimal).split(".");
  if (frac.length > exponent) throw new Error(`fixture bug: ${decimal} has too many decimals`);
  const v = BigInt(int + frac.padEnd(exponent, "0"));
  return negative ? -v : v;
}

/** 1250n → "12.50" for exponent 2 (the test's own formatter). */
export function valueOf(minor: bigint, exponent: number): string {
  const negative = minor < 0n;
  const digits = (negative ? -minor : minor).toString().padStart(exponent + 1, "0");
  const body = exponent === 0 ? digits : `${digits.slice(0, digits.length - exponent)}.${digits.slice(digits.length - exponent)}`;
  return negative ? `-${body}` : body;
}

export interface ModelWallet {
  id: string;
  name: string;
  currency: string;
  opening: bigint;
  openingDate: string | null;
  archived: boolean;
}

export interface ModelLeg {
  id: string;
  walletId: string;
  currency: string;
  date: string;
  signed: bigint;
  direction: "expense" | "income" | "transfer";
  payee: string | null;
  category: string | null;
  tags: string[];
  notes: string | null;
  /** An income filed in a category the user had spent in when it was written (docs/ledger.md, "Refunds"). */
  refund?: boolean;
}

export interface LedgerModel {
  wallets: ModelWallet[];
  legs: ModelLeg[];
}

const PAYEES = ["Trader Joe's", "TRADER JOE'S", "Blue Bottle", "Landlord", "Employer Inc", "Café Olé", null];
const CATEGORIES = ["Groceries", "groceries", "Dining", "Rent", "Salary", "Travel", null];
const TAGS = ["food", "Food", "travel", "work", "fun-2026", "x"];
const NOTES = ["paid with 100% cashback", "split_with_sam", "note about coffee", null, null];

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)]!;
}

function randomDecimal(r: () => number, exponent: number): string {
  // Mostly small amounts, some with amounts floats get wrong, a few large.
  const roll = r();
  let minor: bigint;
  if (roll < 0.1) minor = pick(r, [10n, 20n, 30n, 1n, 3n]) * (exponent >= 1 ? 10n ** BigInt(exponent - 1) : 1n);
  else if (roll < 0.95) minor = BigInt(1 + Math.floor(r() * 50_000)) * (exponent === 0 ? 7n : 1n);
  else minor = BigInt(Math.floor(r() * 9_000_000_000)) * 100n + 1n; // below the amount bound (1e12 units) even in yen
  if (minor <= 0n) minor = 1n;
  return valueOf(minor, exponent);
}

export function dateBetween(r: () => number, from: string, days: number): string {
  const d = new Date(`${from}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + Math.floor(r() * days));
  return d.toISOString().slice(0, 10);
}

/**
 * Creates 5 wallets (USD ×3, JPY, KWD) and `count` transactions through the tools, archives one USD
 * wallet at the end, and returns the model. Dates fall in 2026-01-01 … 2026-04-30.
 */
export async function recordRandomLedger(server: TestServer, user: TestUser, seed: number, count: number): Promise<LedgerModel> {
  const r = seeded(seed);
  const specs: Omit<ModelWallet, "id" | "archived">[] = [
    { name: "Checking", currency: "USD", opening: minorOf("1234.56", 2), openingDate: "2026-01-10" },
    { name: "Savings", currency: "USD", opening: minorOf("0.10", 2), openingDate: null },
    { name: "Old card", currency: "USD", opening: minorOf("-120.05", 2), openingDate: "2026-02-15" },
    { name: "Yen cash", currency: "JPY", opening: minorOf("5000", 0), openingDate: "2026-01-01" },
    { name: "Kuwait", currency: "KWD", opening: minorOf("1.234", 3), openingDate: null },
  ];
  const wallets: ModelWallet[] = [];
  for (const s of specs) {
    const e = EXPONENT[s.currency]!;
    const res = await server.call(
      "create_wallet",
      {
        name: s.name,
        type: "checking",
        currency: s.currency,
        opening_balance: valueOf(s.opening, e),
        ...(s.openingDate ? { opening_date: s.openingDate } : {}),
        idempotency_key: key(),
      },
      user.token,
    );
    wallets.push({ ...s, id: res.wallet.id, archived: false });
  }

  const legs: ModelLeg[] = [];
  for (let i = 0; i < count; i++) {
    const wallet = pick(r, wallets);
    const e = EXPONENT[wallet.currency]!;
    const amount = randomDecimal(r, e);
    const roll = r();
    const sameCurrency = wallets.filter((w) => w.currency === wallet.currency && w.id !== wallet.id);
    const direction: ModelLeg["direction"] = roll < 0.15 && sameCurrency.length > 0 ? "transfer" : roll < 0.4 ? "income" : "expense";
    const date = dateBetween(r, "2026-01-01", 120);
    const payee = pick(r, PAYEES);
    const category = pick(r, CATEGORIES);
    const tags = TAGS.filter(() => r() < 0.25);
    const notes = pick(r, NOTES);
    const to = direction === "transfer" ? pick(r, sameCurrency) : undefined;
    const res = await server.call(
      "create_transaction",
      {
        wallet_id: wallet.id,
        amount,
        direction,
        date,
        ...(to ? { to_wallet_id: to.id } : {}),
        ...(payee ? { payee } : {}),
        ...(category ? { category } : {}),
        ...(tags.length ? { tags } : {}),
        ...(notes ? { notes } : {}),
        idempotency_key: key(),
      },
      user.token,
    );
    const magnitude = minorOf(amount, e);
    const folded = [...new Set(tags.map((t) => t.toLowerCase()))].sort();
    const refund =
      direction === "income" && category !== null && legs.some((l) => l.direction === "expense" && l.category?.toLowerCase() === category.toLowerCase());
    const leg = { walletId: wallet.id, currency: wallet.currency, date, direction, payee, category, tags: folded, notes, refund };
    legs.push({ ...leg, id: res.transaction.id, signed: direction === "income" ? magnitude : -magnitude });
    if (to) legs.push({ ...leg, id: res.counterpart.id, walletId: to.id, signed: magnitude });
  }
  const old = wallets[2]!;
  await server.call("update_wallet", { wallet_id: old.id, archived: true, idempotency_key: key() }, user.token);
  old.archived = true;
  return { wallets, legs };
}

// ── Independent expectations ─────────────────────────────────────────────────────────────────────────

/** Balance at the end of asOf (undefined: every transaction, opening always counted). */
export function expectedBalance(model: LedgerModel, wallet: ModelWallet, asOf?: string): bigint {
  let total = asOf === undefined || wallet.openingDate === null || wallet.openingDate <= asOf ? wallet.opening : 0n;
  for (const leg of model.legs) if (leg.walletId === wallet.id && (asOf === undefined || leg.date <= asOf)) total += leg.signed;
  return total;
}

export interface Figures {
  income: bigint;
  expenses: bigint;
  count: number;
}

function add(map: Map<string, Figures>, k: string, leg: ModelLeg): void {
  const f = map.get(k) ?? { income: 0n, expenses: 0n, count: 0 };
  // A refund is taken off expenses, not added to income.
  if (leg.direction === "income" && !leg.refund) f.income += leg.signed;
  else f.expenses += -leg.signed;
  f.count += 1;
  map.set(k, f);
}

/** Keys "CUR" for totals and "CUR|groupkey" for groups (group keys folded to lower case; "∅" for null). */
export function expectedSummary(
  model: LedgerModel,
  from: string,
  to: string,
  groupBy?: "category" | "tag" | "month" | "wallet" | "payee",
  walletId?: string,
): { totals: Map<string, Figures>; groups: Map<string, Figures> } {
  const totals = new Map<string, Figures>();
  const groups = new Map<string, Figures>();
  for (const leg of model.legs) {
    if (leg.direction === "transfer" || leg.date < from || leg.date > to) continue;
    if (walletId !== undefined && leg.walletId !== walletId) continue;
    add(totals, leg.currency, leg);
    if (!groupBy) continue;
    const keys: (string | null)[] =
      groupBy === "category"
        ? [leg.category?.toLowerCase() ?? null]
        : groupBy === "payee"
          ? [leg.payee?.toLowerCase() ?? null]
          : groupBy === "month"
            ? [leg.date.slice(0, 7)]
            : groupBy === "wallet"
              ? [leg.walletId]
              : leg.tags.length > 0
                ? leg.tags
                : [null];
    for (const k of keys) add(groups, `${leg.currency}|${k ?? "∅"}`, leg);
  }
  return { totals, groups };
}

/** Row counts of every table a write could touch. */
export async function countRows(db: Knex): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of [
    "users",
    "mcp_tokens",
    "wallets",
    "transactions",
    "transaction_tags",
    "budgets",
    "goals",
    "goal_contributions",
    "bill_reminders",
    "audit_log",
    "idempotency_keys",
  ]) {
    const row = await db(t).count({ n: "*" }).first();
    out[t] = Number(row?.n ?? 0);
  }
  return out;
}

export interface RandomWritesPlan {
  /** The user's USD wallets (at least two) and JPY wallet, and a USD goal to fund from a wallet. */
  usd: readonly string[];
  yen: string;
  goal: string;
  r: () => number;
  steps: number;
  /** A transaction date. */
  date: () => string;
  /** Fields added to every create (transfers included), e.g. category and tags. */
  createExtras?: () => Record<string, unknown>;
  /** Fields added to some updates, e.g. a new category or tags. */
  updateExtras?: () => Record<string, unknown>;
  /** Called after every `every`-th step (the totals under test are compared there). */
  every: number;
  checkpoint: (step: number) => Promise<void>;
}

/**
 * A seeded random sequence of ledger writes through the tools, as a chatbot would make them: creates
 * (expenses and income in USD and JPY, transfers), updates of date, amount, wallet (sometimes to the yen
 * wallet, which is refused across currencies) and direction, deletes, goal funding from a wallet. Refused
 * writes must be refused for a reason a caller can act on. Used by the tests of what triggers keep.
 */
export async function randomLedgerWrites(server: TestServer, user: TestUser, plan: RandomWritesPlan): Promise<{ committed: number; refused: number }> {
  const { r, usd, yen } = plan;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const amount = () => (r() < 0.05 ? "90071992547409.93" : valueOf(BigInt(1 + Math.floor(r() * 500_000)), 2));
  let committed = 0;
  let refused = 0;
  const attempt = async (tool: string, params: Record<string, unknown>) => {
    const answer = await server.rpc({ jsonrpc: "2.0", id: 1, method: tool, params: { ...params, idempotency_key: key() } }, user.token);
    if (answer.body.error) {
      if (!["invalid_params", "conflict", "not_found"].includes(answer.body.error.data?.code)) {
        throw new Error(`${tool} ${JSON.stringify(params)}: unexpected ${JSON.stringify(answer.body.error)}`);
      }
      refused++;
    } else committed++;
  };
  for (let i = 0; i < plan.steps; i++) {
    const rows = await server.db("transactions").where({ user_id: user.id }).select("id", "transfer_id", "wallet_id");
    const roll = r();
    if (rows.length < 5 || roll < 0.35) {
      const inYen = r() < 0.15;
      await attempt("create_transaction", {
        wallet_id: inYen ? yen : pick(usd),
        amount: inYen ? String(1 + Math.floor(r() * 90_000)) : amount(),
        direction: r() < 0.7 ? "expense" : "income",
        date: plan.date(),
        ...plan.createExtras?.(),
      });
    } else if (roll < 0.5) {
      const from = pick(usd);
      await attempt("create_transaction", {
        wallet_id: from,
        to_wallet_id: pick(usd.filter((w) => w !== from)),
        amount: amount(),
        direction: "transfer",
        date: plan.date(),
        ...plan.createExtras?.(),
      });
    } else if (roll < 0.8) {
      const row = pick(rows);
      const change: Record<string, unknown> = {};
      if (r() < 0.5) change.date = plan.date();
      if (r() < 0.4) change.amount = row.wallet_id === yen ? String(1 + Math.floor(r() * 90_000)) : amount();
      // Moves: mostly to another USD wallet; sometimes to the yen wallet or onto the counterpart (refused).
      if (r() < 0.4) change.wallet_id = r() < 0.1 ? yen : pick(usd.filter((w) => w !== row.wallet_id));
      if (!row.transfer_id && r() < 0.2) change.direction = pick(["expense", "income"]);
      if (plan.updateExtras && r() < 0.5) Object.assign(change, plan.updateExtras());
      if (Object.keys(change).length === 0) change.date = plan.date();
      await attempt("update_transaction", { transaction_id: row.id, ...change });
    } else if (roll < 0.92) {
      await attempt("delete_transaction", { transaction_id: pick(rows).id });
    } else {
      await attempt("add_goal_funds", { goal_id: plan.goal, amount: amount(), from_wallet_id: pick(usd), date: plan.date() });
    }
    if (i % plan.every === plan.every - 1) await plan.checkpoint(i);
  }
  return { committed, refused };
}
