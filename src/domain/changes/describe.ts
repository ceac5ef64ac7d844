/**
 * A change in the person's words, from its audit snapshots (docs/decisions.md#readable-changes):
 *   "expense -23.45 EUR dm-drogerie markt on 2026-11-20, Girokonto, household"
 *   "changed expense -14.20 USD Cafe on 2026-03-15, Checking: amount -12.40 → -14.20, notes"
 *   "deleted wallet Old cash", "added 400.00 EUR to goal Emergency fund from Everyday checking"
 *   "imported 12 transactions into Giro from a CSV statement", "deleted expense …, with its refund 60.00 EUR Flatmate on 2026-03-05"
 * Wallets are named by their current names (a wallet deleted since by its id). Short values of changed
 * fields are shown before and after; free text (notes, descriptions) and lists are named only: the
 * values are one read away, and a summary stays a line.
 */
import { changesOf } from "../../audit/diff.js";

export interface Described {
  action: string;
  resource_type: string;
  resource_id: string;
  before: unknown;
  after: unknown;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);
const money = (v: unknown): string | undefined => (isObj(v) && typeof v.value === "string" ? `${v.value} ${String(v.currency)}` : undefined);
/** Fields named without their values. */
const NAMED_ONLY = new Set(["notes", "description", "note", "schedule", "categories", "tags", "wallet_ids", "parts"]);

function shown(v: unknown, wallet: (id: string) => string): string {
  if (v === null || v === undefined) return "none";
  const m = money(v);
  if (m) return m;
  if (typeof v === "string" && /^wal_/.test(v)) return wallet(v);
  return String(v);
}

function transactionLine(t: Obj, counterpart: unknown, wallet: (id: string) => string): string {
  const amount = money(t.amount) ?? "";
  const on = `on ${String(t.date)}`;
  if (t.direction === "transfer") {
    const other = isObj(counterpart) ? String(counterpart.wallet_id) : String(t.counterpart_wallet_id ?? "");
    const [from, to] = amount.startsWith("-") ? [String(t.wallet_id), other] : [other, String(t.wallet_id)];
    return `transfer ${amount.replace(/^-/, "")} ${wallet(from)} → ${wallet(to)} ${on}`;
  }
  const who = typeof t.payee === "string" ? ` ${t.payee}` : typeof t.description === "string" ? ` ${t.description}` : "";
  const labels = [typeof t.category === "string" ? t.category : undefined, ...(Array.isArray(t.tags) ? t.tags.map(String) : [])].filter(Boolean);
  // A split row names its parts: "split Groceries -44.80 USD + Gifts -20.00 USD".
  const parts = Array.isArray(t.parts)
    ? t.parts.filter(isObj).map((p) => `${typeof p.category === "string" ? p.category : "uncategorised"} ${money(p.amount) ?? ""}`)
    : [];
  if (parts.length > 0) labels.push(`split ${parts.join(" + ")}`);
  if (t.refund === true) labels.push("refund");
  return `${String(t.direction)} ${amount}${who} ${on}, ${wallet(String(t.wallet_id))}${labels.length ? `, ${labels.join(", ")}` : ""}`;
}

function resourceLine(type: string, r: Obj, wallet: (id: string) => string): string {
  const name = typeof r.name === "string" ? r.name : String(r.id ?? "");
  switch (type) {
    case "transaction":
      return isObj(r.transaction) ? transactionLine(r.transaction, r.counterpart, wallet) : "transaction";
    case "wallet":
      return `wallet ${name} (${String(r.type)}, ${String(r.currency)})`;
    case "budget":
      return `budget ${name} ${money(r.amount) ?? ""} a ${String(r.period)}`;
    case "goal":
      return `goal ${name}${money(r.target_amount) ? ` of ${money(r.target_amount)}` : ""}`;
    case "bill_reminder":
      return `bill reminder ${name}${money(r.amount) ? ` ${money(r.amount)}` : ""}`;
    case "exchange_rate":
      return `rate 1 ${String(r.base)} = ${String(r.rate)} ${String(r.quote)} on ${String(r.date)}`;
    case "recurring_series":
      return `regular payment ${String(r.series)} ${String(r.decision)}`;
    default:
      return `${type.replace("_", " ")} ${name}`;
  }
}

/** update_transactions: "changed 37 transactions: category → Travel, tags +tax-2026 −old, payee → Amazon, wallet → Visa". */
function bulkLine(after: Obj, wallet: (id: string) => string): string {
  const set = isObj(after.set) ? after.set : {};
  const parts: string[] = [];
  if (typeof set.category === "string") parts.push(`category → ${set.category}`);
  const added = Array.isArray(set.add_tags) ? set.add_tags.map((t) => `+${String(t)}`) : [];
  const removed = Array.isArray(set.remove_tags) ? set.remove_tags.map((t) => `−${String(t)}`) : [];
  if (added.length + removed.length > 0) parts.push(`tags ${[...added, ...removed].join(" ")}`);
  if (typeof set.payee === "string") parts.push(`payee → ${set.payee}`);
  if (typeof set.wallet_id === "string") parts.push(`wallet → ${wallet(set.wallet_id)}`);
  const n = Number(after.changed ?? 0);
  return `changed ${n} transaction${n === 1 ? "" : "s"}: ${parts.join(", ") || "nothing"}`;
}

/** import_transactions: "imported 12 transactions into Giro from a CSV statement (3 duplicates skipped)". */
function importLine(after: Obj, wallet: (id: string) => string): string | undefined {
  const imp = isObj(after.import) ? after.import : undefined;
  if (!imp) return undefined;
  const counts = isObj(imp.counts) ? imp.counts : {};
  const n = Number(counts.created ?? (Array.isArray(after.changes) ? after.changes.length : 0));
  const skipped = Number(counts.duplicate ?? 0) + Number(counts.possible_duplicate ?? 0);
  const kind = typeof imp.format === "string" ? `${imp.format.toUpperCase()} ` : "";
  return `imported ${n} transaction${n === 1 ? "" : "s"} into ${wallet(String(imp.wallet_id))} from a ${kind}statement${skipped > 0 ? ` (${skipped} duplicate${skipped === 1 ? "" : "s"} skipped)` : ""}`;
}

/**
 * delete_transaction's refunds: deleted with it (they still name it: refund_of) or kept as plain income
 * (the snapshot is as they are after the call, unlinked).
 */
function refundsLine(before: Obj): string {
  const refunds = Array.isArray(before.refunds) ? before.refunds.filter(isObj) : [];
  if (refunds.length === 0) return "";
  const deleted = refunds.filter((r) => typeof r.refund_of === "string");
  const kept = refunds.filter((r) => typeof r.refund_of !== "string");
  const line = (r: Obj) => `${money(r.amount) ?? ""}${typeof r.payee === "string" ? ` ${r.payee}` : ""} on ${String(r.date)}`;
  const out: string[] = [];
  if (deleted.length > 0) out.push(`, with its refund${deleted.length === 1 ? "" : "s"} ${deleted.map(line).join(", ")}`);
  if (kept.length > 0) out.push(`; refund${kept.length === 1 ? "" : "s"} kept as income: ${kept.map(line).join(", ")}`);
  return out.join("");
}

export function describeChange(e: Described, wallet: (id: string) => string): string {
  return oneLine(sentenceOf(e, wallet));
}

/**
 * A summary is one line of plain text: the payees, names and descriptions it quotes (data from anyone
 * who wrote a statement or a name) cannot break it into lines of their own or carry control characters.
 */
const oneLine = (text: string): string => text.replace(/[\p{Cc}\s]+/gu, " ").trim();

function sentenceOf(e: Described, wallet: (id: string) => string): string {
  const before = isObj(e.before) ? e.before : undefined;
  const after = isObj(e.after) ? e.after : undefined;
  if (e.action === "undo") return `undid change ${String(after?.undid ?? "")}`;
  if (e.action === "add_funds" && after) {
    const c = isObj(after.contribution) ? after.contribution : {};
    const from = typeof c.from_wallet_id === "string" ? ` from ${wallet(c.from_wallet_id)}` : "";
    return `added ${money(c.amount) ?? ""} to goal ${String(after.name)}${from} on ${String(c.date)}`;
  }
  if (e.action === "bulk_update" && after) return bulkLine(after, wallet);
  if (e.action === "create" && e.resource_type === "import" && after) return importLine(after, wallet) ?? `import ${e.resource_id}`;
  if (e.action === "create" && after) return resourceLine(e.resource_type, after, wallet);
  if (e.action === "delete" && before)
    return `deleted ${resourceLine(e.resource_type, before, wallet)}${e.resource_type === "transaction" ? refundsLine(before) : ""}`;
  if (e.action === "update" && after) {
    const fields = (changesOf({ action: "update", resourceType: e.resource_type, resourceId: e.resource_id, before: e.before, after: e.after }) ?? []).map(
      (c) =>
        NAMED_ONLY.has(c.field) || (typeof c.after === "string" && c.after.length > 40) || (isObj(c.after) && !money(c.after))
          ? c.field
          : `${c.field} ${shown(c.before, wallet)} → ${shown(c.after, wallet)}`,
    );
    return `changed ${resourceLine(e.resource_type, after, wallet)}: ${fields.length ? fields.join(", ") : "nothing"}`;
  }
  return `${e.action} ${e.resource_type.replace("_", " ")} ${e.resource_id}`;
}
