/**
 * The answer budgets measured (docs/decisions.md#what-a-model-reads): o200k tokens of the content text a model reads
 * (src/mcp/model-text.ts) over the demo ledger (src/demo/seed.ts). One measurement, two users:
 * test/protocol/answer-budgets.test.ts asserts it against src/mcp/answer-budgets.ts on both engines
 * (calls over HTTP), and `npm run surface` writes it into docs/tool-surface.md (a fixed day and seeded
 * ids, so the figures change only when the answers do).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { seededRandom } from "../src/random.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { closeServices, createServices } from "../src/app.js";
import { authenticateBearer, createToken, KNOWN_SCOPES } from "../src/auth/tokens.js";
import { createUser } from "../src/auth/users.js";
import { loadConfig } from "../src/config.js";
import type { IdPrefix, IdSource } from "../src/db/ids.js";
import { createDb } from "../src/db/knex.js";
import { migrateLatest } from "../src/db/migrate.js";
import { todayInTimeZone } from "../src/calendar/time-zones.js";
import { DEMO_CURRENCY, DEMO_EMAIL, DEMO_TIMEZONE, seedDemoPerson } from "../src/demo/seed.js";
import { loadCorpus } from "../src/domain/knowledge/corpus.js";
import { DEFAULT_KB_FOLDER, seedKnowledgeBase } from "../src/domain/knowledge/store.js";
import { modelData, modelText } from "../src/mcp/model-text.js";
import { tools } from "../generated/registry.js";
import { packagePath } from "../src/package-root.js";
import { girokontoCsv } from "./bench/statement.js";

export const tokens = (s: string): number => encode(s).length;

/** Calls a tool as the demo person (every scope) and returns its structuredContent. */
export type CallTool = (name: string, args: Record<string, unknown>) => Promise<Record<string, any>>;

/** What one listed transaction costs: its row, plus its share of the table's column names and wallet ids. */
export interface TransactionCost {
  id: string;
  direction: string;
  tokens: number;
  /** The row (or, on a page of one, the object) the model reads for it. */
  text: string;
}

/**
 * The cost of each transaction of one list_transactions answer. A page of two or more is a table
 * (model-text.ts): a transaction pays for its row and an equal share of what the table states once
 * (columns, fields equal on every row, the wallet ids the rows point to). next_cursor and
 * total_count belong to the page and are not shared out.
 */
export function listedTransactionCosts(page: Record<string, any>): TransactionCost[] {
  const listed = page.transactions as { id: string; direction: string }[];
  const rendered = (modelData(page) as { transactions: unknown }).transactions;
  if (Array.isArray(rendered)) {
    return listed.map((tx, i) => {
      const text = JSON.stringify(rendered[i]);
      return { id: tx.id, direction: tx.direction, tokens: tokens(text), text };
    });
  }
  const table = rendered as { rows: unknown[][] };
  const rows = table.rows.map((r) => JSON.stringify(r));
  const share = (tokens(JSON.stringify(table)) - rows.reduce((a, r) => a + tokens(r), 0)) / rows.length;
  return listed.map((tx) => {
    const text = rows.find((r) => r.includes(JSON.stringify(tx.id)));
    if (!text) throw new Error(`transaction ${tx.id} has no row in the rendered page`);
    return { id: tx.id, direction: tx.direction, tokens: Math.ceil(tokens(text) + share), text };
  });
}

/**
 * The arguments of the read tools whose largest answer the schema alone does not give (schemaLargestArgs):
 * a required argument, a range with a cap, a page the answer-budgets test compares. Every other read tool
 * is measured at the arguments its schema makes largest.
 */
function largestArgs(today: string): Record<string, Record<string, unknown>[]> {
  return {
    // The largest page, as the answer-budgets test reads it (every transaction of the demo ledger).
    list_transactions: [{ limit: 200 }],
    get_transaction_summary: [{ date_from: "1900-01-01", date_to: today, group_by: "payee" }],
    list_goals: [{ include_archived: true }],
    list_wallets: [{ include_archived: true }],
    list_bill_reminders: [{ days_ahead: 366, include_inactive: true }],
    list_recurring: [{ include_ended: true }],
    // A year ahead with regular spending: every month and the low point's events (daily stays out of the text).
    get_cash_flow_forecast: [{ days: 365, include_regular_spending: true }],
    // 60 weekly points (the most a series has), ending today.
    get_net_worth: [{ from: new Date(Date.parse(`${today}T00:00:00Z`) - 59 * 7 * 86_400_000).toISOString().slice(0, 10), to: today, step: "week" }],
    search_product_knowledge: [{ query: "how do budgets work", limit: 20 }],
    calculate: [{ expression: "(1150 + 49 + 29.90 + 39.99 + 13.99) * 12 / 365" }],
  };
}

/** The earliest day a range argument is given: before any ledger. */
const EARLIEST_DAY = "1900-01-01";

type PropertySchema = { type?: string; maximum?: number; enum?: unknown[] };

const ID = /^([a-z]{3}_)[A-Za-z0-9]{16,40}$/;
let demoIdsMemo: Map<string, string> | undefined;

/** One id of the demo person per kind (its prefix), as the list_ read tools answer them. */
async function demoIds(call: CallTool): Promise<Map<string, string>> {
  if (demoIdsMemo) return demoIdsMemo;
  const ids = new Map<string, string>();
  const visit = (v: unknown): void => {
    if (typeof v === "string") {
      const prefix = ID.exec(v)?.[1];
      if (prefix && !ids.has(prefix)) ids.set(prefix, v);
    } else if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === "object") Object.values(v).forEach(visit);
  };
  for (const t of tools.filter((t) => t.kind === "read" && t.name.startsWith("list_"))) visit(await call(t.name, {}).catch(() => undefined));
  demoIdsMemo = ids;
  return ids;
}

/**
 * A required argument has no largest value the schema could give: it is taken from the tool's first
 * example in openrpc.json, an id in it replaced by the demo person's id of the same kind, so a new tool
 * needs no entry in largestArgs (which stays for what an example does not show: the largest choice).
 */
async function requiredFromExample(tool: string, required: string[], call: CallTool): Promise<Record<string, unknown>> {
  const spec = JSON.parse(readFileSync(join(packagePath("."), "openrpc.json"), "utf8")) as {
    methods: { name: string; examples?: { params: { name: string; value: unknown }[] }[] }[];
  };
  const params = spec.methods.find((m) => m.name === tool)?.examples?.[0]?.params ?? [];
  const ids = await demoIds(call);
  const out: Record<string, unknown> = {};
  for (const name of required) {
    const value = params.find((p) => p.name === name)?.value;
    if (value === undefined)
      throw new Error(
        `${tool} requires ${name} and its first example gives none: give one in its example, or its largest arguments in largestArgs in scripts/answer-measure.ts`,
      );
    const prefix = typeof value === "string" ? ID.exec(value)?.[1] : undefined;
    out[name] = prefix ? (ids.get(prefix) ?? value) : value;
  }
  return out;
}

/**
 * The arguments a read tool's schema makes largest, for a tool largestArgs does not name, so that a new
 * tool is measured at its largest answer and not at its defaults (a default date range is often this
 * month): every optional integer at its maximum (a page, days ahead), every `include_…` flag on, a range
 * (`from`/`…_from`, `to`/`…_to`) from EARLIEST_DAY to a year after today; then each enum value in turn
 * on top of that (a grouping, a kind), the largest answer kept. A required argument comes from the tool's
 * example (requiredFromExample).
 */
export function schemaLargestArgs(schema: { properties?: Record<string, PropertySchema> }, today: string): Record<string, unknown>[] {
  const yearAfter = new Date(Date.parse(`${today}T00:00:00Z`) + 366 * 86_400_000).toISOString().slice(0, 10);
  const base: Record<string, unknown> = {};
  const enums: [string, unknown[]][] = [];
  for (const [name, p] of Object.entries(schema.properties ?? {})) {
    if ((p.type === "integer" || p.type === "number") && p.maximum !== undefined) base[name] = p.maximum;
    else if (p.type === "boolean" && name.startsWith("include_")) base[name] = true;
    else if (p.type === "string" && p.enum) enums.push([name, p.enum]);
    else if (p.type === "string" && /^(date_)?from$|_from$/.test(name)) base[name] = EARLIEST_DAY;
    else if (p.type === "string" && /^(date_)?to$|_to$/.test(name)) base[name] = yearAfter;
  }
  return [base, ...enums.flatMap(([name, values]) => values.map((v) => ({ ...base, [name]: v })))];
}

export interface AnswerMeasure {
  /** list_capabilities with every scope. */
  capabilities: number;
  /** Every transaction of the ledger, at its worst over the first default page and the largest page. */
  transactions: TransactionCost[];
  /** Each read tool at its largest answer. */
  largest: { tool: string; args: Record<string, unknown>; tokens: number }[];
  /** import_transactions previews of a 5,000-row CSV, at the default page of rows and the largest. */
  importPreview: { rows_limit: number; tokens: number }[];
  /** update_transactions' dry run over every expense of the ledger (a tag on each): its 20 rows shown. */
  bulkPreview: { matched: number; tokens: number };
}

export async function measureAnswers(call: CallTool, today: string): Promise<AnswerMeasure> {
  const capabilities = tokens(modelText(await call("list_capabilities", {})));

  // Full pages: the first at the default size (what a model usually reads) and the largest, which holds
  // every transaction of the demo ledger. A shorter page shares its column names and wallet ids among
  // fewer rows (a page of one is a plain object, ~77 tokens); see docs/protocol.md.
  const transactions: TransactionCost[] = [];
  for (const args of [{}, { limit: 200 }]) {
    for (const cost of listedTransactionCosts(await call("list_transactions", args))) {
      const i = transactions.findIndex((c) => c.id === cost.id);
      if (i < 0) transactions.push(cost);
      else if (cost.tokens > transactions[i]!.tokens) transactions[i] = cost;
    }
  }

  const special = largestArgs(today);
  // The knowledge article a model could read: each entry of the shipped corpus.
  special.get_knowledge_article = (await loadCorpus(DEFAULT_KB_FOLDER)).map((e) => ({ id: e.id }));
  const largest: AnswerMeasure["largest"] = [];
  for (const tool of tools.filter((t) => t.kind === "read")) {
    let argsList = special[tool.name];
    if (!argsList) {
      const schema = tool.inputSchema as { properties?: Record<string, PropertySchema>; required?: string[] };
      const required = schema.required?.length ? await requiredFromExample(tool.name, schema.required, call) : {};
      argsList = schemaLargestArgs(schema, today).map((args) => ({ ...args, ...required }));
    }
    let best = { tool: tool.name, args: argsList[0]!, tokens: -1 };
    for (const args of argsList) {
      const n = tokens(modelText(await call(tool.name, args)));
      if (n > best.tokens) best = { tool: tool.name, args, tokens: n };
    }
    largest.push(best);
  }
  // The preview a model reads before committing an import: the default page of rows, and the largest.
  const wallet = (await call("list_wallets", {})).wallets[0].id as string;
  const statement = girokontoCsv(5000);
  const importPreview: AnswerMeasure["importPreview"] = [];
  for (const rowsLimit of [20, 200]) {
    const args = { wallet_id: wallet, statement, rows_limit: rowsLimit, idempotency_key: "00000000-0000-4000-8000-000000000026", dry_run: true };
    importPreview.push({ rows_limit: rowsLimit, tokens: tokens(modelText(await call("import_transactions", args))) });
  }
  // The preview of a bulk edit at its largest answer: every expense, each gaining a tag, 20 rows shown.
  const filter = { direction: "expense" };
  const expected = (await call("list_transactions", { ...filter, limit: 1 })).total_count as number;
  const preview = await call("update_transactions", {
    filter,
    expected_count: expected,
    add_tags: ["measured"],
    idempotency_key: "00000000-0000-4000-8000-000000000027",
    dry_run: true,
  });
  const bulkPreview = { matched: preview.matched as number, tokens: tokens(modelText(preview)) };
  return { capabilities, transactions, largest, importPreview, bulkPreview };
}

/** The largest cost of a transaction of each kind (a transfer leg carries two more ids). */
export function worstTransactions(costs: readonly TransactionCost[]): { expenseOrIncome: TransactionCost; transferLeg?: TransactionCost } {
  const worst = (xs: TransactionCost[]) => xs.reduce<TransactionCost | undefined>((a, x) => (!a || x.tokens > a.tokens ? x : a), undefined);
  const expenseOrIncome = worst(costs.filter((c) => c.direction !== "transfer"));
  if (!expenseOrIncome) throw new Error("no expense or income was listed");
  return { expenseOrIncome, transferLeg: worst(costs.filter((c) => c.direction === "transfer")) };
}

/**
 * The moment the demo ledger is measured at: it ends on this day (Europe/Berlin). Any fixed moment would do,
 * but one that moves would not: the ledger holds the days of this month so far, so early in a month it has
 * ~25 fewer transactions than late in one (test/protocol/answer-budgets.test.ts).
 */
export const DEMO_LEDGER_AT = new Date("2026-11-24T12:00:00Z");

/**
 * 128-bit-looking base62 ids from a seeded generator: as costly to read as real ones, the same every run
 * (a random id reads as 12 to 17 tokens, so random ones move a row's cost by a few tokens from run to run).
 */
export function seededIds(random: () => number): IdSource {
  const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  return { next: (prefix: IdPrefix) => `${prefix}_${Array.from({ length: 22 }, () => ALPHABET[Math.floor(random() * 62)]).join("")}` };
}

/** Version 4 UUIDs from a seeded generator (the demo's idempotency keys, which list_changes shows). */
function seededUuids(random: () => number): () => string {
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 16).toString(16)).join("");
  return () => `${hex(8)}-${hex(4)}-4${hex(3)}-${"89ab"[Math.floor(random() * 4)]}${hex(3)}-${hex(12)}`;
}

/**
 * The demo ledger in a temporary SQLite database, from a fixed moment and with seeded ids and keys, for
 * `npm run surface`: the demo person with a token of every scope, calls through the service's dispatch.
 * The clock starts at `at` and ticks a second each time it is read, so that audit times differ as they
 * would (a stopped clock would make list_changes' `at` one value on every row, stated once).
 */
export async function withDemoLedger<T>(at: Date, fn: (call: CallTool, today: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "fmcp-surface-"));
  const config = loadConfig({ LOG_LEVEL: "silent", DATABASE_URL: `sqlite:${join(dir, "demo.sqlite")}` });
  const db = createDb(config.databaseUrl);
  const random = seededRandom(20261124);
  const ids = seededIds(random);
  let ticks = 0;
  const now = () => new Date(at.getTime() + 1000 * ticks++);
  try {
    await migrateLatest(db);
    await seedKnowledgeBase(db);
    // A fixed preview key (src/writes/preview.ts), so a dry run's preview_id, and so its tokens, are the same every run.
    await db("server_secrets").insert({
      name: "preview",
      value: Buffer.from("answer-measure-preview-key").toString("base64url"),
      created_at: at.toISOString(),
    });
    const services = await createServices(config, db, { now, ids });
    try {
      const user = await createUser(db, { email: DEMO_EMAIL, password: "surface-measure-only", timezone: DEMO_TIMEZONE, currency: DEMO_CURRENCY }, at, ids);
      const { token } = await createToken(db, user.id, { name: "surface", scopes: [...KNOWN_SCOPES], expiresInDays: 30 }, config.tokenPepper, at, ids);
      const caller = await authenticateBearer(db, `Bearer ${token}`, config.tokenPepper, at);
      await seedDemoPerson(services.dispatch, caller, at, seededUuids(random));
      let n = 0;
      const call: CallTool = (name, args) => services.dispatch(name, args, { caller, requestId: `surface-${++n}` });
      return await fn(call, todayInTimeZone(DEMO_TIMEZONE, at));
    } finally {
      await closeServices(services);
    }
  } finally {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}
