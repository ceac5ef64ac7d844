/**
 * What a row of an export may hold: the write tools' rules, column by column, so that an import puts in
 * nothing the tools would have refused (docs/decisions.md, "Import checks every row"). A file is data from
 * outside: a bad date, an unknown currency or direction, an id outside the id pattern, a positive expense
 * or an audit entry no tool could have written would otherwise go in as it is and make the account answer
 * internal_error for good.
 *
 * checkRow returns the problems of one row (column and what was expected), and the row as it is inserted:
 * the columns the database derives from others (name_normalized, category_key, payee_key, rrule) are
 * computed here, never taken from the file. A column this file does not describe is a problem, so a
 * migration that adds a column must add its rule here (test/ops/import-checks.test.ts checks that).
 * References are checked against the rows before them (an export lists wallets before transactions, and
 * so on): the memory kept is the ids seen, never the rows.
 */
import { AUDIT_ACTIONS, AUDIT_RESOURCE_TYPES } from "../audit/log.js";
import { toolsByName } from "../../generated/registry.js";
import { limits } from "../../generated/limits.js";
import { isValidIsoDate } from "../calendar/days.js";
import { isKnownCurrency } from "../money/currencies.js";
import { amountLimitMinor } from "../money/ceilings.js";
import { findShapeProblem } from "../rpc/input-checks.js";
import { toRRule, validateSchedule } from "../domain/bills/schedule.js";
import { foldedKeys, foldKey, nullableText } from "../domain/shared/text.js";
import { storedMapping } from "../domain/imports/mappings.js";
import { parseSeriesKey } from "../domain/recurring/decisions.js";

export interface RowProblem {
  column: string;
  message: string;
}

/** What the rows before this one defined: ids per kind (with a wallet's or goal's currency), names, keys. */
export class ImportContext {
  readonly wallets = new Map<string, string>();
  readonly goals = new Map<string, string>();
  readonly transactions = new Set<string>();
  readonly transfers = new Map<string, number>();
  readonly names = new Set<string>();
  readonly externalIds = new Set<string>();

  /** Transfers whose two legs the file does not both hold. */
  unpairedTransfers(): string[] {
    return [...this.transfers].filter(([, n]) => n !== 2).map(([id]) => id);
  }
}

type Check = (value: unknown, row: Record<string, unknown>, ctx: ImportContext) => string | undefined;
/** A check of the value alone (also usable as a Check). */
type ValueCheck = (value: unknown) => string | undefined;
interface Column {
  check: Check;
  /** May be absent or null (else the row must hold a value). */
  optional?: boolean;
}

const ID = (prefix: string) => new RegExp(`^${prefix}_[A-Za-z0-9]{16,40}$`);
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const req = (check: Check): Column => ({ check });
const opt = (check: Check): Column => ({ check, optional: true });

function text(max: number, { blank = false } = {}): ValueCheck {
  return (v) => (typeof v === "string" && v.length >= 1 && [...v].length <= max && (blank || /\S/.test(v)) ? undefined : `text of 1 to ${max} characters`);
}
const id =
  (prefix: string): ValueCheck =>
  (v) =>
    typeof v === "string" && ID(prefix).test(v) ? undefined : `an id ${prefix}_ followed by 16 to 40 letters or digits`;
const day: Check = (v) =>
  isValidIsoDate(v) && v >= limits.firstDate && v <= limits.lastDate ? undefined : `a date YYYY-MM-DD from ${limits.firstDate} to ${limits.lastDate}`;
const timestamp: Check = (v) => (typeof v === "string" && TIMESTAMP.test(v) && !Number.isNaN(Date.parse(v)) ? undefined : "an RFC 3339 timestamp");
const oneOf =
  (...values: string[]): Check =>
  (v) =>
    typeof v === "string" && values.includes(v) ? undefined : `one of ${values.join(", ")}`;
const currency: Check = (v) => (isKnownCurrency(v) ? undefined : "an ISO 4217 currency code this server knows, such as EUR");
const bool: Check = (v) => (typeof v === "boolean" || v === 0 || v === 1 ? undefined : "true or false");
const int =
  (min: number, max: number): Check =>
  (v) =>
    Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max ? undefined : `a whole number from ${min} to ${max}`;

/** An integer of minor units (a number, or a string of digits past 2^53), or undefined. */
function minorOf(v: unknown): bigint | undefined {
  if (Number.isSafeInteger(v)) return BigInt(v as number);
  if (typeof v === "string" && /^-?(0|[1-9][0-9]{0,30})$/.test(v)) return BigInt(v);
  return undefined;
}

/** Minor units of the row's currency (or of `currencyOf`'s), below the amount bound, of the sign `sign` allows. */
function minor(sign: "positive" | "not negative" | "any" = "any", currencyOf?: (row: Record<string, unknown>, ctx: ImportContext) => unknown): Check {
  return (v, row, ctx) => {
    const cur = currencyOf ? currencyOf(row, ctx) : row.currency;
    const n = minorOf(v);
    const bound = isKnownCurrency(cur) ? amountLimitMinor(cur) : undefined;
    const what = `a whole number of minor units${sign === "any" ? "" : `, ${sign}`}${bound ? `, below ${bound} in magnitude` : ""}`;
    if (n === undefined || (bound !== undefined && (n >= bound || -n >= bound))) return what;
    if ((sign === "positive" && n <= 0n) || (sign === "not negative" && n < 0n)) return what;
    return undefined;
  };
}

const ref =
  (kind: "wallets" | "goals" | "transactions", prefix: string): Check =>
  (v, _row, ctx) => {
    const bad = id(prefix)(v);
    if (bad) return bad;
    return ctx[kind].has(v as string) ? undefined : `the id of a ${kind.slice(0, -1).replace("_", " ")} listed earlier in the file`;
  };

/** JSON text of a list of items each passing `item`, at most `max`. */
const jsonList =
  (max: number, item: Check): Check =>
  (v, row, ctx) => {
    let list: unknown;
    try {
      list = typeof v === "string" ? JSON.parse(v) : undefined;
    } catch {
      list = undefined;
    }
    if (!Array.isArray(list) || list.length > max) return `a JSON list of at most ${max} items`;
    for (const x of list) {
      const bad = item(x, row, ctx);
      if (bad) return `a JSON list whose items are each ${bad}`;
    }
    return undefined;
  };

const jsonObjectOrNull: Check = (v) => {
  try {
    const parsed = typeof v === "string" ? (JSON.parse(v) as unknown) : undefined;
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? undefined : "JSON text of an object";
  } catch {
    return "JSON text of an object";
  }
};

const name = text(100);
/** A decimal amount as a rule stores its bounds ("12.50"). */
const decimal: Check = (v) => (typeof v === "string" && /^-?\d{1,15}(\.\d{1,18})?$/.test(v) ? undefined : 'a decimal amount such as "12.50"');
const RATE = /^(0|[1-9][0-9]{0,11})(?:\.([0-9]{1,12}))?$/;
const notes = opt(text(2000, { blank: true }));
const stamps = { created_at: req(timestamp), updated_at: req(timestamp) };
/** The id of what an audit entry names (src/db/ids.ts: rul rules, xrt exchange rates, imp imports, blk bulk edits, rcd decisions on regular payments). */
const AUDITED_ID = /^(wal|txn|trf|bud|gol|gct|bil|rul|xrt|imp|blk|rcd)_[A-Za-z0-9]{16,40}$/;
const WRITE_TOOLS = [...toolsByName.values()].filter((t) => t.kind === "write").map((t) => t.name);

/** The columns of each table as an export holds them (without user_id). */
export const COLUMNS: Record<string, Record<string, Column>> = {
  wallets: {
    id: req(id("wal")),
    name: req(name),
    name_normalized: opt(() => undefined), // derived: recomputed from name
    type: req(oneOf("cash", "checking", "savings", "credit_card", "e_wallet", "investment", "loan", "other")),
    currency: req(currency),
    opening_balance_minor: req(minor()),
    opening_date: opt(day),
    archived: req(bool),
    in_net_worth: opt(bool), // absent in exports made before it existed: the database's default (yes)
    notes,
    ...stamps,
  },
  transactions: {
    id: req(id("txn")),
    wallet_id: req(ref("wallets", "wal")),
    date: req(day),
    amount_minor: req((v, row, ctx) => {
      const bad = minor()(v, row, ctx);
      if (bad) return bad;
      const n = minorOf(v)!;
      if (row.direction === "expense" && n > 0n) return "a negative number (an expense takes money out), or 0";
      if (row.direction === "income" && n < 0n) return "a positive number (income brings money in), or 0";
      if (row.direction === "transfer" && n === 0n) return "a number other than 0 (a transfer leg moves money)";
      return undefined;
    }),
    currency: req((v, row, ctx) => {
      const bad = currency(v, row, ctx);
      if (bad) return bad;
      const walletCurrency = ctx.wallets.get(String(row.wallet_id));
      return walletCurrency === undefined || walletCurrency === v ? undefined : `${walletCurrency}, the currency of its wallet`;
    }),
    direction: req(oneOf("expense", "income", "transfer")),
    payee: opt(text(140)),
    description: opt(text(500, { blank: true })),
    category: opt(text(64)),
    notes,
    external_id: opt(text(100, { blank: true })),
    transfer_id: opt((v, row) => (row.direction !== "transfer" ? "null: only a transfer leg has a transfer_id" : id("trf")(v))),
    counterpart_wallet_id: opt((v, row, ctx) =>
      row.direction !== "transfer" ? "null: only a transfer leg has a counterpart wallet" : ref("wallets", "wal")(v, row, ctx),
    ),
    category_key: opt(() => undefined), // derived
    payee_key: opt(() => undefined), // derived
    tags: opt((v) =>
      Array.isArray(v) && v.length <= 20 && v.every((t) => text(40)(t) === undefined) ? undefined : "a list of at most 20 tags of 1 to 40 characters",
    ),
    // Split transactions and refunds (docs/ledger.md): an export made before them has neither column.
    refund_of: opt((v, row) => (row.direction !== "income" ? "null: only an income refunds an expense" : id("txn")(v))),
    refund: opt(
      (v, row, ctx) => bool(v, row, ctx) ?? ((v === true || v === 1) && row.direction !== "income" ? "false: only an income is a refund" : undefined),
    ),
    parts: opt(partsCheck),
    ...stamps,
  },
  budgets: {
    id: req(id("bud")),
    name: req(name),
    name_normalized: opt(() => undefined),
    amount_minor: req(minor("positive")),
    currency: req(currency),
    period: req(oneOf("week", "month", "quarter", "year")),
    interval: req(int(1, 12)),
    anchor_date: req(day),
    categories: req(jsonList(50, text(64))),
    tags: req(jsonList(20, text(40))),
    wallet_ids: req(jsonList(50, ref("wallets", "wal"))),
    start_date: req(day),
    end_date: opt((v, row, ctx) => day(v, row, ctx) ?? (String(v) < String(row.start_date) ? "a date on or after start_date" : undefined)),
    rollover: req(oneOf("none", "carry_unspent")),
    alert_threshold: req(int(1, 100)),
    notes,
    ...stamps,
  },
  goals: {
    id: req(id("gol")),
    name: req(name),
    name_normalized: opt(() => undefined),
    target_minor: opt(minor("positive")),
    currency: req(currency),
    target_date: opt(day),
    wallet_id: opt(ref("wallets", "wal")),
    status: req(oneOf("active", "paused", "achieved", "archived")),
    achieved_at: opt(timestamp),
    notes,
    ...stamps,
  },
  goal_contributions: {
    id: req(id("gct")),
    goal_id: req(ref("goals", "gol")),
    amount_minor: req(minor("any", (row, ctx) => ctx.goals.get(String(row.goal_id)))),
    date: req(day),
    note: opt(text(2000, { blank: true })),
    transaction_id: opt(ref("transactions", "txn")),
    from_wallet_id: opt(ref("wallets", "wal")),
    created_at: req(timestamp),
  },
  bill_reminders: {
    id: req(id("bil")),
    name: req(name),
    payee: opt(text(140)),
    amount_minor: opt(minor("not negative")),
    amount_min_minor: opt(minor("not negative")),
    amount_max_minor: opt(minor("not negative")),
    currency: req(currency),
    wallet_id: opt(ref("wallets", "wal")),
    category: opt(text(64)),
    schedule: req((v) => {
      try {
        validateSchedule(typeof v === "string" ? JSON.parse(v) : undefined);
        return undefined;
      } catch {
        return "JSON text of a schedule as create_bill_reminder takes it";
      }
    }),
    rrule: opt(() => undefined), // derived from schedule
    start_date: req(day),
    notice_days: req(int(0, 60)),
    autopay: req(bool),
    active: req(bool),
    notes,
    ...stamps,
  },
  rules: {
    id: req(id("rul")),
    position: req(int(0, 1_000_000)),
    field: req(oneOf("payee", "description")),
    operator: req(oneOf("equals", "contains", "starts_with")),
    value: req(text(200)),
    value_key: opt(() => undefined), // derived: recomputed from value
    min_amount: opt(decimal),
    max_amount: opt(decimal),
    direction: opt(oneOf("expense", "income")),
    wallet_id: opt(ref("wallets", "wal")),
    set_category: opt(text(255)),
    add_tags: opt(jsonList(20, text(64))),
    rename_payee: opt(text(255)),
    ...stamps,
  },
  exchange_rates: {
    id: req(id("xrt")),
    base: req(currency),
    quote: req(currency),
    date: req(day),
    // As set_exchange_rate stores it (src/domain/networth/rates.ts checkRate).
    rate: req((v) => (typeof v === "string" && RATE.test(v) && !/^0(\.0*)?$/.test(v) ? undefined : 'a positive decimal such as "1.0842"')),
    ...stamps,
  },
  import_mappings: {
    wallet_id: req(ref("wallets", "wal")),
    fingerprint: req((v) => (typeof v === "string" && /^[0-9a-f]{64}$/.test(v) ? undefined : "a layout fingerprint: 64 hexadecimal digits")),
    mapping: req((v) => (storedMapping(v) !== null ? undefined : "JSON text of a CSV mapping as import_transactions saves it")),
    ...stamps,
  },
  recurring_decisions: {
    id: req(id("rcd")),
    // As set_recurring_series stores it (src/domain/recurring/decide.ts): a key list_recurring gives.
    series_key: req((v) =>
      typeof v === "string" && [...v].length <= 400 && parseSeriesKey(v) !== undefined ? undefined : 'a series key such as "expense:EUR:netflix"',
    ),
    decision: req(oneOf("confirmed", "dismissed", "corrected")),
    payee: opt(text(255)),
    amount_min_minor: opt(minor("not negative", (row) => parseSeriesKey(String(row.series_key))?.currency)),
    amount_max_minor: opt(minor("not negative", (row) => parseSeriesKey(String(row.series_key))?.currency)),
    day_from: opt(int(1, 31)),
    day_to: opt(int(1, 31)),
    ...stamps,
  },
  audit_log: {
    id: opt((v) => (minorOf(v) !== undefined ? undefined : "a whole number")), // renumbered by the new log
    created_at: req(timestamp),
    tool: req(oneOf(...WRITE_TOOLS)),
    action: req(oneOf(...AUDIT_ACTIONS)),
    resource_type: req(oneOf(...AUDIT_RESOURCE_TYPES)),
    resource_id: req((v) =>
      typeof v === "string" && AUDITED_ID.test(v)
        ? undefined
        : "the id of a wallet, transaction, budget, goal, bill reminder, rule, exchange rate, import or bulk edit",
    ),
    before_json: opt(jsonObjectOrNull),
    after_json: opt(jsonObjectOrNull),
    idempotency_key: req((v) => (typeof v === "string" && UUID.test(v) ? undefined : "a UUID")),
    request_id: req(text(60)),
  },
};

/**
 * A split transaction's parts as create_transaction takes them: at most 50 (TransactionParts), none on a
 * transfer, two or more, each a non-zero amount of the row's sign, together exactly its amount_minor.
 */
function partsCheck(v: unknown, row: Record<string, unknown>, ctx: ImportContext): string | undefined {
  const max = 50; // TransactionParts.maxItems in openrpc.json
  const what = `a list of 2 to ${max} parts {amount_minor, category, tags, notes, refund} of the row's sign, summing to amount_minor (or [] when not split)`;
  if (!Array.isArray(v) || v.length > max || v.length === 1) return what;
  if (v.length === 0) return undefined;
  if (row.direction === "transfer") return "[]: a transfer is never split";
  const total = minorOf(row.amount_minor);
  let sum = 0n;
  for (const part of v) {
    if (part === null || typeof part !== "object" || Array.isArray(part)) return what;
    const { amount_minor, category, tags, notes, refund, ...rest } = part as Record<string, unknown>;
    if (Object.keys(rest).length > 0) return what;
    const n = minorOf(amount_minor);
    if (n === undefined || n === 0n || minor()(amount_minor, row, ctx) !== undefined) return what;
    if (total !== undefined && n < 0n !== total < 0n) return what;
    if (category != null && text(64)(category) !== undefined) return what;
    if (notes != null && text(2000)(notes) !== undefined) return what;
    if (tags != null && !(Array.isArray(tags) && tags.length <= 20 && tags.every((t) => text(40)(t) === undefined))) return what;
    if (refund != null && typeof refund !== "boolean" && refund !== 0 && refund !== 1) return what;
    sum += n;
  }
  return total === undefined || sum === total ? undefined : what;
}

/** Names are unique per user and table (compared folded): the key that says so. */
const NAMED = new Set(["wallets", "budgets", "goals"]);

/**
 * The problems of one row of `table`, and the row to insert (derived columns computed). Records what the
 * row defines in ctx when it has no problem.
 */
export function checkRow(table: string, raw: unknown, ctx: ImportContext): { problems: RowProblem[]; row: Record<string, unknown> } {
  const columns = COLUMNS[table]!;
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return { problems: [{ column: "(row)", message: "expected an object" }], row: {} };
  const row = raw as Record<string, unknown>;
  const problems: RowProblem[] = [];
  const shape = findShapeProblem(row, { checkText: true, maxDepth: 4, maxValues: 1000 });
  if (shape) problems.push({ column: shape.path.split(".")[0] || "(row)", message: `expected ${shape.expected}: ${shape.message}` });
  for (const column of Object.keys(row)) {
    if (!(column in columns)) problems.push({ column, message: "not a column of an export; remove it" });
  }
  for (const [column, rule] of Object.entries(columns)) {
    const v = row[column];
    if (v === undefined || v === null) {
      if (!rule.optional) problems.push({ column, message: "missing; expected a value" });
      continue;
    }
    const bad = rule.check(v, row, ctx);
    if (bad) problems.push({ column, message: `expected ${bad}` });
  }
  // A row with a good id is known to the rows after it even when other columns are bad, so one bad
  // wallet is one problem, not one per transaction that refers to it.
  if (!problems.some((p) => p.column === "id")) {
    if (table === "wallets") ctx.wallets.set(String(row.id), String(row.currency));
    if (table === "goals") ctx.goals.set(String(row.id), String(row.currency));
    if (table === "transactions") ctx.transactions.add(String(row.id));
  }
  if (problems.length > 0) return { problems, row };

  const out: Record<string, unknown> = {};
  for (const column of Object.keys(columns)) if (row[column] !== undefined) out[column] = row[column];
  if (NAMED.has(table)) {
    const key = `${table}:${foldKey(String(row.name))}`;
    if (ctx.names.has(key))
      return { problems: [{ column: "name", message: "expected a name not used by another row of the section (compared case-insensitively)" }], row };
    ctx.names.add(key);
    out.name_normalized = foldKey(String(row.name));
  }
  if (out.in_net_worth === null) delete out.in_net_worth;
  for (const b of ["archived", "in_net_worth", "autopay", "active"]) if (b in out) out[b] = out[b] === true || out[b] === 1;
  if ("refund" in out) out.refund = out.refund === true || out.refund === 1 ? 1 : 0; // an integer column
  if (table === "transactions") {
    if (row.external_id != null) {
      const key = `${String(row.wallet_id)}:${String(row.external_id)}`;
      if (ctx.externalIds.has(key))
        return { problems: [{ column: "external_id", message: "expected an external_id not used by another transaction of the wallet" }], row };
      ctx.externalIds.add(key);
    }
    if (row.direction === "transfer") {
      if (row.transfer_id == null || row.counterpart_wallet_id == null)
        return { problems: [{ column: "transfer_id", message: "expected a transfer_id and a counterpart_wallet_id on a transfer leg" }], row };
      ctx.transfers.set(String(row.transfer_id), (ctx.transfers.get(String(row.transfer_id)) ?? 0) + 1);
    }
    Object.assign(out, foldedKeys({ payee: nullableText(row.payee), category: nullableText(row.category) }));
  }
  if (table === "rules") out.value_key = foldKey(String(row.value));
  if (table === "bill_reminders") out.rrule = toRRule(validateSchedule(JSON.parse(String(row.schedule))));
  if (table === "audit_log") delete out.id; // the new log numbers its entries
  return { problems: [], row: out };
}
