/**
 * The text a language model reads of a tool's answer (CallToolResult.content), decided once for every
 * tool: the same data as structuredContent, rendered compactly. structuredContent keeps the full answer
 * and its outputSchema; the text leaves out what a conversation never needs and what it would pay for on
 * every turn: null members, empty lists, created_at/updated_at timestamps, a series kept for an app
 * (`daily`), and Money as "-12.50 USD"
 * (no `minor`, and no sibling `currency` repeating the currency of the amounts beside it).
 *
 * A list of two or more flat records (every value a string, number, boolean or a list of those, or a
 * table itself, as a split transaction's parts are: a page of transactions, categories, wallets,
 * capabilities…) is a table, still JSON, so free text stays quoted and
 * escaped and a payee cannot fake a row:
 *   {"on_every_row": {...}, "columns": [...], "rows": [[...], ...]}
 * - the field names once per list (`columns`), then one array per record, cells in column order;
 * - a field with the same value on every record is stated once, in `on_every_row`;
 * - columns in the records' own field order (the same for every answer of a kind, whatever its rows); a
 *   record lacking a field has null in its cell (the instructions say so), and a row ends at its
 *   record's last field (a row shorter than `columns` lacks the fields after it), so that the rare
 *   trailing fields (a transfer's two ids) cost nothing on the rows without them;
 * - a `wallet_id` that repeats is stated once, in `wallet_ids`, and each row starts with its position in
 *   that list (column `wallet_ids_index`, from 0). An opaque id costs ~20 tokens, so stating it once per
 *   wallet rather than once per transaction is what brings a listed transaction under its budget
 *   (answer-budgets.ts); unlike grouping rows by wallet, it never reorders them, so a page sorted by date
 *   or amount reads in that order.
 * A list of nested records (a budget with its status) stays a list of objects.
 */
const TIMESTAMPS = new Set(["created_at", "updated_at"]);
/**
 * Members that hold a day-by-day series for an MCP App (get_cash_flow_forecast's `daily`: up to 366
 * balances per wallet): the text states what they sum up to (the low point, month totals) instead, so a
 * model never pays for hundreds of numbers it reads past (structuredContent keeps them).
 */
const APP_SERIES = new Set(["daily"]);
/** Fields a table states once when their value repeats, rows pointing into the list (see above). */
const GROUP_KEYS = ["wallet_id"] as const;

type Scalar = string | number | boolean | null;

function isMoney(v: unknown): v is { value: string; currency: string; minor: number } {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const m = v as Record<string, unknown>;
  return Object.keys(m).length === 3 && typeof m.value === "string" && typeof m.currency === "string" && typeof m.minor === "number";
}

const isScalar = (v: unknown): v is Scalar => v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean";
/** A compacted list of records inside a record (a split transaction's parts): its own small table. */
const isNestedTable = (v: unknown) => v !== null && typeof v === "object" && !Array.isArray(v) && Array.isArray((v as Record<string, unknown>).rows);
/** A cell: a scalar, a list of scalars, or a [before, after] pair of those (a change, below). */
const isFlat = (v: unknown) => isScalar(v) || (Array.isArray(v) && v.every((x) => isScalar(x) || (Array.isArray(x) && x.every(isScalar)))) || isNestedTable(v);
const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * The columns' order: the records' own field order (each record's fields come in the order its kind
 * writes them), merged over all records, so that the columns of a kind of record come in one order
 * whichever records a list holds and in whichever order (two previews of one call read alike; issue 49),
 * never by how many records have a field. Two fields no record orders (never on one record) go by their
 * earliest place in a record, then by name.
 */
function fieldOrder(rows: readonly Record<string, unknown>[]): string[] {
  const after = new Map<string, Set<string>>();
  const before = new Map<string, number>();
  const place = new Map<string, number>();
  for (const r of rows) {
    const ks = Object.keys(r);
    ks.forEach((k, i) => {
      if (!after.has(k)) after.set(k, new Set());
      if (!before.has(k)) before.set(k, 0);
      place.set(k, Math.min(place.get(k) ?? i, i));
      const next = ks[i + 1];
      if (next !== undefined && !after.get(k)!.has(next)) {
        after.get(k)!.add(next);
        before.set(next, (before.get(next) ?? 0) + 1);
      }
    });
  }
  const rank = (a: string, b: string) => place.get(a)! - place.get(b)! || (a < b ? -1 : a > b ? 1 : 0);
  const out: string[] = [];
  const left = new Set(after.keys());
  while (left.size > 0) {
    // The first field nothing left comes before (or, were records ever to disagree, the first left).
    const ready = [...left].filter((k) => before.get(k) === 0).sort(rank);
    const k = ready[0] ?? [...left].sort(rank)[0]!;
    left.delete(k);
    out.push(k);
    for (const n of after.get(k)!) before.set(n, before.get(n)! - 1);
  }
  return out;
}

/** The table form of a list of compacted records, or undefined when the list is not one (see above). */
function table(items: unknown[]): Record<string, unknown> | undefined {
  if (items.length < 2 || !items.every((r) => isRecord(r) && Object.values(r).every(isFlat))) return undefined;
  const rows = items as Record<string, unknown>[];
  const keys = fieldOrder(rows);
  const has = (r: Record<string, unknown>, k: string) => Object.hasOwn(r, k);

  const same: Record<string, unknown> = {};
  for (const k of keys) {
    const first = JSON.stringify(rows[0]![k]);
    if (rows.every((r) => has(r, k) && JSON.stringify(r[k]) === first)) same[k] = rows[0]![k];
  }
  const groupKey = GROUP_KEYS.find(
    (k) => !has(same, k) && rows.every((r) => typeof r[k] === "string") && new Set(rows.map((r) => r[k])).size * 2 <= rows.length,
  );
  const columns = keys.filter((k) => !has(same, k) && k !== groupKey);
  const rowOf = (r: Record<string, unknown>): unknown[] => {
    const cells: unknown[] = columns.map((k) => (has(r, k) ? r[k] : null));
    while (cells.length > 0 && cells[cells.length - 1] === null) cells.pop();
    return cells;
  };

  const out: Record<string, unknown> = {};
  if (Object.keys(same).length > 0) out.on_every_row = same;
  out.columns = columns;
  if (groupKey) {
    // Each value once, and each row its position in that list: the rows keep the list's order.
    const values = [...new Set(rows.map((r) => r[groupKey]))];
    out.columns = [`${groupKey}s_index`, ...columns];
    out[`${groupKey}s`] = values;
    out.rows = rows.map((r) => [values.indexOf(r[groupKey]), ...rowOf(r)]);
  } else {
    out.rows = rows.map(rowOf);
  }
  return out;
}

const isChange = (c: unknown) => isRecord(c) && Object.keys(c).length === 3 && typeof c.field === "string" && "before" in c && "after" in c;

/**
 * A record of a list whose `changes` (the spec's Changes: field, before, after) become its own cells,
 * one per changed field, named "<field> (before, after)", holding the pair: so the changed rows of a
 * preview (a bulk edit's, an undo's) are a table like every other list (issue 39), a row per record
 * with its before and after side by side, rather than a list of nested lists.
 */
function changesAsCells(v: unknown): unknown {
  if (!isRecord(v) || !Array.isArray(v.changes) || v.changes.length === 0 || !v.changes.every(isChange)) return v;
  const { changes, ...rest } = v as { changes: { field: string; before: unknown; after: unknown }[] } & Record<string, unknown>;
  for (const c of changes) rest[`${c.field} (before, after)`] = [c.before, c.after];
  return rest;
}

function compact(v: unknown): unknown {
  if (isMoney(v)) return `${v.value} ${v.currency}`;
  if (Array.isArray(v)) {
    const items = v.map((x) => compact(changesAsCells(x)));
    return table(items) ?? items;
  }
  if (v === null || typeof v !== "object") return v;
  const entries = Object.entries(v as Record<string, unknown>);
  const moneyCurrencies = new Set(entries.filter(([, x]) => isMoney(x)).map(([, x]) => (x as { currency: string }).currency));
  const out: Record<string, unknown> = {};
  for (const [k, x] of entries) {
    if (x === null || x === undefined || TIMESTAMPS.has(k) || APP_SERIES.has(k)) continue;
    if (Array.isArray(x) && x.length === 0) continue;
    if (k === "currency" && moneyCurrencies.size === 1 && moneyCurrencies.has(x as string)) continue;
    out[k] = compact(x);
  }
  return out;
}

/**
 * A replayed answer is the first answer to its idempotency_key, stored when it committed: the text says
 * so before the data, since the data may have changed since (structuredContent says it with status).
 */
const REPLAYED =
  "Replayed: this is the stored answer of the first call with this idempotency_key; nothing was changed now, and the data may have changed since (list_changes shows later writes).\n";

/** The value modelText stringifies (what the answer budgets measure row by row). */
export function modelData(result: Record<string, unknown>): unknown {
  return compact(result);
}

export function modelText(result: Record<string, unknown>): string {
  return `${result.status === "replayed" ? REPLAYED : ""}${JSON.stringify(compact(result))}`;
}
