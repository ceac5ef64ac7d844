/**
 * import_transactions: a statement's rows planned against the wallet, then recorded (docs/import.md).
 *
 * Each row gets one status:
 *   invalid             the parser or the checks here could not take it (field and reason named);
 *   duplicate           its bank id or its content key is in the import ledger (import_keys) of the wallet,
 *                       also when the person has since deleted that transaction; or its bank id is already
 *                       the external_id of a transaction of the wallet; or the file repeats a bank id;
 *   possible_duplicate  a transaction of the wallet, not yet claimed by another row, has the same signed
 *                       amount and a date at most FUZZY_DAYS away (and no other bank id; the payee only
 *                       ranks): recorded only when the call lists the row in import_rows;
 *   new                 recorded.
 * Categories: the first of the person's rules that matches (which may also rename the payee and add tags),
 * else the category the person most often gave that payee. New rows go in as one bulk insert in the
 * caller's transaction (the write pipeline's), with their keys in the ledger; the caller audits them once.
 */
import type { Knex } from "knex";
import type { DomainContext } from "../../context.js";
import type { Transaction } from "../../../generated/types.js";
import type { IdSource } from "../../db/ids.js";
import { byPrimaryKey, fromWithIndex } from "../../db/dialect.js";
import { breathe } from "../../db/pace.js";
import { limits, stringMaxLengths } from "../../../generated/limits.js";
import { AppError, invalidParams } from "../../errors.js";
import { formatMinor } from "../../money/amount.js";
import { addDays } from "../../calendar/days.js";
import { parseStatementBounded } from "../../statements/bounded.js";
import type { CsvHints, CsvMapping, ParsedStatement, StatementFormat } from "../../statements/parse.js";
import { sameCurrency } from "../../statements/cell-currency.js";
import { directionValues } from "../../statements/csv-sign.js";
import { listRules } from "../rules/store.js";
import { firstMatch } from "../rules/match.js";
import { assertRunningTotals } from "../wallets/ceiling.js";
import { walletsIn } from "../wallets/currency.js";
import { balanceOf, getWalletRow, ledgerSums, type WalletRow } from "../wallets/store.js";
import { coerceTransactionRow, transactionFromRow } from "../transactions/store.js";
import { markRefunds } from "../transactions/parts.js";
import { foldedKeys, foldKey, normalizeTags } from "../shared/text.js";
import { dateInRange, rowMinor } from "./amounts.js";
import { usualCategories } from "./history.js";
import { dateOrderAgainstFile, rememberedMapping, rememberMapping, type OverruledKey, type RememberedMapping } from "./mappings.js";
import { FUZZY_DAYS, bankKey, contentKey } from "./keys.js";
import { balanceGate, decisionNeeded, refuseUnconfirmed, type BalanceGate } from "./balance-gate.js";
import { matchPossible } from "./possible.js";

export type RowStatus = "new" | "duplicate" | "possible_duplicate" | "invalid" | "not_booked";

export interface PlannedEntry {
  row: number;
  date: string | null;
  minor: bigint | null;
  payee: string | null;
  description: string | null;
  bankId: string | null;
  category: string | null;
  /** "rule rul_…" or "history", null without a category. */
  categoryFrom: string | null;
  tags: string[];
  status: RowStatus;
  /** duplicate / possible_duplicate: the transaction (or "row N" of this file) it matches. */
  of: string | null;
  ofDeleted: boolean;
  /** invalid: "field: reason"; not_booked: the row's status ("pending", "declined" …). */
  reason: string | null;
  /** invalid: the row still holds an amount, so leaving it out changes the balance. */
  holdsMoney: boolean;
  keys: string[];
  transactionId: string | null;
  /** The statement's description was longer than a description may be and was cut there. */
  descriptionCut: boolean;
}

export interface ImportInput {
  walletId: string;
  statement: string;
  format?: StatementFormat;
  mapping?: Partial<CsvMapping>;
  /** The statement already read (prepareStatement, before the write's transaction, or a bank connection's rows); read here when absent. */
  prepared?: PreparedStatement;
  /** Possible duplicates (by row number) the person wants recorded anyway. */
  importRows: readonly number[];
  skipInvalid: boolean;
  /** The wallet's balance the person confirmed, where the import would leave out money or miss the statement's balance. */
  expectedBalance?: string;
  /** A preview: invalid rows are shown, not refused (the commit refuses them unless skipInvalid). */
  dryRun: boolean;
  now: Date;
  ids: IdSource;
  /** Binds the preview to the rows as planned (src/writes/preview.ts); the write pipeline sets it. */
  bindPreview?: DomainContext["bindPreview"];
  /**
   * "bridge": rows a bank connection read (src/domain/banks/sync.ts), already signed from the account's
   * side (a card's purchase is negative), with no statement text to read again; none may be an answer.
   */
  source?: "statement" | "bridge";
}

export interface Reconciliation {
  date: string;
  statement_balance: string;
  wallet_balance: string;
  difference: string;
  /** Rows whose amounts explain the difference (created rows to look at, or rows left out to import). */
  likely_rows: number[];
  /** The difference before this import: an import that grows it says so (importWarnings). */
  differenceBefore: bigint;
  differenceMinor: bigint;
  walletMinor: bigint;
}

/** Where a CSV's mapping came from: detected, sent by the call, or remembered for the wallet (and when saved). */
export interface MappingSource {
  source: "detected" | "given" | "remembered";
  /** When the remembered mapping this read started from was saved; null when none was. */
  savedAt: string | null;
  /** A remembered key the file's own evidence overruled (importWarnings says so); null when none was. */
  overruled: OverruledKey | null;
}

export interface ImportOutcome {
  importId: string;
  /** CSV only. */
  mappingSource: MappingSource | null;
  wallet: WalletRow;
  parsed: ParsedStatement;
  rows: PlannedEntry[];
  created: Transaction[];
  /** The transactions the commit writes (new rows and the possible duplicates in import_rows), in a preview too. */
  toCreate: number;
  reconciliation: Reconciliation | null;
  gate: BalanceGate;
}

/**
 * The statement's rows, read off the event loop when it is large (src/statements/bounded.ts). The tool
 * calls it before the write's transaction opens (WriteHandler.prepare), so no connection waits on it.
 */
export const readStatement = (input: Pick<ImportInput, "statement" | "format" | "mapping"> & { hints?: CsvHints; owner?: string }): Promise<ParsedStatement> =>
  parseStatementBounded(input.statement, input.format, input.mapping, undefined, input.hints, input.owner);

/** A statement read for one wallet, with what its reading depended on (checked again inside the transaction). */
export interface PreparedStatement {
  parsed: ParsedStatement;
  card: boolean;
  remembered: RememberedMapping | null;
  /** The remembered date order the file's own dates overruled (the answer warns), or null. */
  overruled: OverruledKey | null;
}

/**
 * The statement read as the wallet needs it, before the transaction: with a card wallet's hints, then,
 * for a CSV of a layout the person imported into this wallet before, with the mapping remembered for it
 * (what the call's mapping names overrides it key by key). A wallet that does not exist (or is another
 * person's) is left for the handler to refuse; the statement is then read without hints.
 */
export async function prepareStatement(
  db: Knex,
  userId: string,
  input: Pick<ImportInput, "walletId" | "statement" | "format" | "mapping">,
): Promise<PreparedStatement> {
  const wallet = await db("wallets").where({ user_id: userId, id: input.walletId }).first("type");
  const card = wallet?.type === "credit_card";
  const detected = await readStatement({ ...input, hints: { card }, owner: userId });
  // Too many rows is refused on the first read: another reading (a remembered mapping) cannot make them fewer.
  assertStatementRows(detected);
  let parsed = detected;
  let remembered: RememberedMapping | null = null;
  let overruled: OverruledKey | null = null;
  if (wallet !== undefined && parsed.format === "csv" && typeof parsed.layout === "string") {
    remembered = await rememberedMapping(db, userId, input.walletId, parsed.layout);
    if (remembered !== null) {
      const merged = withGiven(remembered.mapping, input.mapping);
      parsed = await readStatement({ statement: input.statement, format: "csv", mapping: merged, hints: { card }, owner: userId });
      // Never silently over the file's own evidence: dates that decide their order are read in it (the answer says so).
      overruled = input.mapping?.date_order === undefined ? dateOrderAgainstFile(detected, parsed) : null;
      if (overruled !== null)
        parsed = await readStatement({
          statement: input.statement,
          format: "csv",
          mapping: { ...merged, date_order: overruled.read },
          hints: { card },
          owner: userId,
        });
    }
  }
  return { parsed, card, remembered, overruled };
}

/** Statements planned against a wallet so far by this process (test/tools/import-row-bound.test.ts counts them). */
export const statementPlans = { count: 0 };

/**
 * A statement of more rows to book than one import creates (info.x-limits.bulk_write_rows) is refused as
 * soon as it is read, before any planning (matching against the ledger, rules, history): a 32,000-row file
 * was planned whole before the cap refused it (issue 51). Rows the bank marks not booked do not count. A
 * bank connection's rows are not statements: its sync books the cap's worth of new rows (banks/sync.ts).
 */
function assertStatementRows(parsed: ParsedStatement): void {
  const rows = parsed.rows.reduce((n, r) => (r.notBooked === undefined ? n + 1 : n), 0);
  if (rows <= limits.bulkWriteRows) return;
  throw invalidParams(
    "statement",
    `a statement of at most ${limits.bulkWriteRows} rows to book`,
    `statement: it holds ${rows} rows to book; one import reads at most ${limits.bulkWriteRows}. Nothing was imported. Split the statement by date and import the parts one after another (known rows are recognised, so overlapping parts are safe).`,
  );
}

/** The remembered mapping, with what the call's mapping names instead. */
const withGiven = (remembered: Partial<CsvMapping>, given: Partial<CsvMapping> | undefined): Partial<CsvMapping> => ({
  ...remembered,
  ...Object.fromEntries(Object.entries(given ?? {}).filter(([, v]) => v !== undefined)),
});

const abs = (v: bigint) => (v < 0n ? -v : v);

/** The commit's refusal when the direction of a debit/credit pair was read by content with doubt (columns-by-content.ts). */
function debitCreditUnsure(parsed: ParsedStatement) {
  const m = parsed.mapping!;
  return invalidParams(
    "mapping.debit",
    "the column of money out, named by the person",
    `mapping.debit: nothing in this CSV tells whether ${JSON.stringify(m.debit_column)} or ${JSON.stringify(m.credit_column)} is money out; the preview read ${JSON.stringify(m.debit_column)} so. Nothing was imported. Ask the person, then send mapping {"debit":${JSON.stringify(m.debit_column)},"credit":${JSON.stringify(m.credit_column)}} (or the other way round).`,
  );
}

function directionUnsure(parsed: ParsedStatement) {
  const d = parsed.unsure!.direction!;
  return invalidParams(
    "mapping.sign_out",
    "the value of the sign column that means money out, named by the person",
    d.column === null
      ? `mapping.sign_out: every amount is unsigned and nothing in this CSV tells money out from in. Nothing was imported. Ask the person, then send mapping {"sign_out":""} if every row is money in, or mapping {"negate":true} if every row is money out; a file that mixes them cannot be read: export it with signed amounts or debit and credit columns.`
      : `mapping.sign_out: nothing but column ${JSON.stringify(d.column)} (${directionValues(d)}) tells money out from in, in words no list here knows. Nothing was imported. Ask the person which value means money out, then send mapping {"sign":${JSON.stringify(d.column)},"sign_out":<that value>} (several separated by "|"), or mapping {"sign_out":""} if every row is money in.`,
  );
}

export async function importStatement(db: Knex, userId: string, input: ImportInput): Promise<ImportOutcome> {
  const wallet = await getWalletRow(db, userId, input.walletId, "wallet_id");
  // The statement was read before the transaction (prepareStatement) as this wallet needs it: a card
  // statement knowing it is one (purchases may be positive), a CSV of a layout the person already imported
  // into this wallet with the mapping remembered for it (docs/import.md, "A mapping remembered per
  // wallet"), never silently over the file's own dates. What that reading depended on is checked here,
  // inside the transaction: changed in between (the wallet's type, the remembered mapping), the call is
  // refused to be sent again, never read again here, where a large statement would hold the database for
  // seconds (issue 51). A bank connection's rows (source "bridge") come read already.
  const card = wallet.type === "credit_card" && input.source !== "bridge";
  const prepared = input.prepared ?? (await prepareStatement(db, userId, input));
  const { parsed } = prepared;
  const given = input.mapping ?? {};
  const sent = Object.values(given).some((v) => v !== undefined);
  let mappingSource: MappingSource | null = null;
  const layout = prepared.remembered !== null || (parsed.format === "csv" && typeof parsed.layout === "string") ? parsed.layout : null;
  const remembered = typeof layout === "string" ? await rememberedMapping(db, userId, wallet.id, layout) : null;
  if (prepared.card !== card || (remembered?.savedAt ?? null) !== (prepared.remembered?.savedAt ?? null))
    throw new AppError(
      "conflict",
      "wallet_id: the wallet's type or its remembered mapping changed while the statement was being read; nothing was imported. Send the call again.",
      { field: "wallet_id" },
    );
  if (parsed.format === "csv" && typeof parsed.layout === "string")
    mappingSource = {
      source: sent ? "given" : remembered !== null ? "remembered" : "detected",
      savedAt: remembered?.savedAt ?? null,
      overruled: prepared.overruled,
    };
  if (parsed.currency !== null && parsed.currency !== wallet.currency)
    throw invalidParams(
      "wallet_id",
      `a wallet in ${parsed.currency}`,
      `wallet_id: the statement is in ${parsed.currency} but the wallet ${JSON.stringify(wallet.name)} holds ${wallet.currency}. ${await walletsIn(db, userId, parsed.currency)}`,
    );
  if (parsed.rows.length === 0 && input.source !== "bridge")
    throw invalidParams("statement", "a statement with at least one transaction", "statement: the statement holds no transactions.");

  if (input.source !== "bridge") assertStatementRows(parsed);
  const rows = await planRows(db, userId, wallet, parsed);
  // The preview is bound to each row as planned against the ledger (new, duplicate of which transaction,
  // its category): a commit passing its preview_id is refused with stale_preview when any differs now.
  input.bindPreview?.({
    noun: "statement rows, as matched against the ledger,",
    rows: rows.map(({ transactionId: _t, ...r }) => ({ id: `row ${r.row}`, content: r })),
  });
  const byNumber = new Map(rows.map((r) => [r.row, r]));
  for (const n of input.importRows) {
    const r = byNumber.get(n);
    if (r === undefined)
      throw invalidParams(
        "import_rows",
        "row numbers of this statement's preview",
        `import_rows: the statement has no row ${n}. Use the row numbers of the preview.`,
      );
  }
  // Words no list knows decide every row's direction: the commit waits for the person's sign_out (issue 48).
  if (!input.dryRun && parsed.unsure?.keys.includes("sign_out") === true) throw directionUnsure(parsed);
  const invalid = rows.filter((r) => r.status === "invalid");
  if (invalid.length > 0 && !input.skipInvalid && !input.dryRun) {
    const first = invalid[0]!;
    throw invalidParams(
      "statement",
      "rows that all read as transactions",
      `statement: row ${first.row} does not read as a transaction (its ${first.reason!.split(":")[0]})${invalid.length > 1 ? `, and ${invalid.length - 1} more ${invalid.length === 2 ? "row does" : "rows do"} not either` : ""}; a preview (dry_run: true) shows each row's reason. Nothing was imported. Correct the mapping or the file, or send skip_invalid: true to import the other rows.`,
    );
  }
  // Which column is money out, told by content alone, decides every row's sign: the commit waits for the person.
  if (!input.dryRun && parsed.unsure?.keys.includes("debit_column") === true) throw debitCreditUnsure(parsed);
  const accepted = new Set(input.importRows);
  const toCreate = rows.filter((r) => r.status === "new" || (r.status === "possible_duplicate" && accepted.has(r.row)));
  // One cap for every bulk write (info.x-limits.bulk_write_rows), counted as the rows written: a preview
  // of a larger statement is refused too, as update_transactions refuses a larger selection.
  if (toCreate.length > limits.bulkWriteRows)
    throw invalidParams(
      "statement",
      `at most ${limits.bulkWriteRows} transactions to create`,
      `statement: it would create ${toCreate.length} transactions; one import creates at most ${limits.bulkWriteRows}. Nothing was imported. Split the statement by date and import the parts one after another (known rows are recognised, so overlapping parts are safe).`,
    );
  const importId = input.ids.next("imp");
  // The balance after the import, reckoned before anything is written: a commit that would leave out money
  // or miss the statement's balance waits for the person's word (balance-gate.ts).
  const reconciliation = await reconcile(db, userId, wallet, parsed, rows, toCreate);
  const gate = await balanceGate(db, userId, wallet, parsed, rows, toCreate, reconciliation);
  if (!input.dryRun && decisionNeeded(gate, input.skipInvalid, parsed)) refuseUnconfirmed(gate, reconciliation, parsed, input.expectedBalance, wallet.currency);
  // A preview writes nothing, even inside the rolled-back transaction: 5,000 inserts (and their totals
  // triggers) would be most of its time. It adds the rows it would create to the balance instead.
  const created = input.dryRun ? [] : await record(db, userId, wallet, toCreate, input);
  // The commit confirms the mapping it read with: saved for the next statement of this layout.
  if (!input.dryRun && parsed.mapping !== null && typeof parsed.layout === "string")
    await rememberMapping(db, userId, wallet.id, parsed.layout, parsed.mapping, input.now);
  return {
    importId,
    mappingSource,
    wallet,
    parsed,
    rows,
    created,
    toCreate: toCreate.length,
    reconciliation,
    gate,
  };
}

const PAYEE_MAX = stringMaxLengths.Payee;
const DESCRIPTION_MAX = stringMaxLengths.Description;

/**
 * A statement's payee longer than a payee may be (a German Verwendungszweck, joined CAMT lines) is cut
 * there, and the whole text kept as the description when the row has none: the row still imports.
 */
function fitPayee(payee: string | null, description: string | null): { payee: string | null; description: string | null } {
  if (payee === null) return { payee, description };
  const chars = [...payee.normalize("NFC").trim()];
  if (chars.length <= PAYEE_MAX) return { payee, description };
  return { payee: chars.slice(0, PAYEE_MAX).join("").trim(), description: description ?? payee };
}

/**
 * A description longer than the tools allow (a hostile file's 200,000 characters) is cut at that limit,
 * read from the spec like the payee's: every transaction then holds what a tool could have written, and
 * the answer says how many were cut (importWarnings).
 */
function fitDescription(fitted: { payee: string | null; description: string | null }): {
  payee: string | null;
  description: string | null;
  descriptionCut: boolean;
} {
  const { description } = fitted;
  // Limits count code points; the first DESCRIPTION_MAX of them lie within twice as many code units.
  const chars = description === null || description.length <= DESCRIPTION_MAX ? [] : Array.from(description.slice(0, DESCRIPTION_MAX * 2));
  if (description === null || (chars.length <= DESCRIPTION_MAX && description.length <= DESCRIPTION_MAX * 2)) return { ...fitted, descriptionCut: false };
  return { ...fitted, description: chars.slice(0, DESCRIPTION_MAX).join("").trimEnd(), descriptionCut: true };
}

async function planRows(db: Knex, userId: string, wallet: WalletRow, parsed: ParsedStatement): Promise<PlannedEntry[]> {
  statementPlans.count++;
  const rules = await listRules(db, userId);
  const occurrences = new Map<string, number>();
  const seenBankIds = new Map<string, number>();
  const rows: PlannedEntry[] = [];
  for (const r of parsed.rows) {
    // 5,000 rows of keys and rules are a few hundred milliseconds of CPU: the loop turns in between.
    if (rows.length % 256 === 255) await breathe();
    rows.push(plan(r));
  }
  function plan(r: ParsedStatement["rows"][number]): PlannedEntry {
    const planned: PlannedEntry = {
      row: r.row,
      date: r.date,
      minor: null,
      ...fitDescription(fitPayee(r.payee, r.description)),
      bankId: r.bankId,
      category: null,
      categoryFrom: null,
      tags: [],
      status: "new",
      of: null,
      ofDeleted: false,
      reason: null,
      holdsMoney: false,
      keys: [],
      transactionId: null,
    };
    // Not booked by the bank: shown with its amount, never imported, whatever else the row holds.
    if (r.notBooked !== undefined) {
      const shown = r.amount === null ? null : rowMinor(r.amount, wallet.currency);
      return Object.assign(planned, { status: "not_booked", reason: r.notBooked, minor: shown !== null && "minor" in shown ? shown.minor : null });
    }
    const fail = (field: string, reason: string) =>
      Object.assign(planned, {
        status: "invalid",
        reason: `${field}: ${reason}`,
        holdsMoney: r.holdsMoney ?? (r.amount !== null && !/^-?0*(\.0*)?$/.test(r.amount)),
      });
    if (r.error) return fail(r.error.field, r.error.reason);
    if (r.currency !== null && !sameCurrency(r.currency, wallet.currency))
      return fail("currency", `${r.currency.slice(0, 3)} differs from the wallet's ${wallet.currency}`);
    if (!dateInRange(r.date!)) return Object.assign(fail("date", `${r.date} is out of range`), { date: null });
    const amount = rowMinor(r.amount!, wallet.currency);
    if ("reason" in amount) return fail("amount", amount.reason);
    planned.minor = amount.minor;
    const base = contentKey(r.date!, amount.minor, r.payee, 0).replace(/\|0$/, "");
    const n = occurrences.get(base) ?? 0;
    occurrences.set(base, n + 1);
    planned.keys.push(contentKey(r.date!, amount.minor, r.payee, n));
    if (r.bankId !== null) {
      planned.keys.unshift(bankKey(r.bankId));
      const earlier = seenBankIds.get(r.bankId);
      if (earlier !== undefined) Object.assign(planned, { status: "duplicate", of: `row ${earlier}` });
      else seenBankIds.set(r.bankId, r.row);
    }
    const effect = firstMatch(rules, {
      payee: r.payee,
      description: r.description,
      amountMinor: abs(amount.minor),
      currency: wallet.currency,
      direction: amount.minor < 0n ? "expense" : "income",
      walletId: wallet.id,
    });
    if (effect) {
      planned.payee = effect.payee ?? planned.payee;
      planned.tags = effect.tags;
      if (effect.category !== null) Object.assign(planned, { category: effect.category, categoryFrom: `rule ${effect.ruleId}` });
    }
    return planned;
  }

  const valid = rows.filter((r) => r.status !== "invalid" && r.status !== "not_booked");
  await markKnown(db, userId, wallet, valid);
  await markPossible(db, userId, wallet, valid);

  const history = await usualCategories(
    db,
    userId,
    valid.filter((r) => r.category === null && r.payee !== null).map((r) => r.payee!),
  );
  for (const r of valid) {
    if (r.category !== null || r.payee === null) continue;
    const usual = history.get(foldKey(r.payee));
    if (usual !== undefined) Object.assign(r, { category: usual, categoryFrom: "history" });
  }
  return rows;
}

/** Layers 1 and 2: the ledger's keys, and bank ids that are already external_ids of the wallet. */
async function markKnown(db: Knex, userId: string, wallet: WalletRow, rows: PlannedEntry[]): Promise<void> {
  const keys = rows.flatMap((r) => (r.bankId !== null ? [r.keys[0]!] : r.keys));
  const known = new Map<string, string>();
  for (let i = 0; i < keys.length; i += 500) {
    const found = await db("import_keys")
      .where({ user_id: userId, wallet_id: wallet.id })
      .whereIn("key", keys.slice(i, i + 500))
      .select("key", "transaction_id");
    for (const f of found) known.set(String(f.key), String(f.transaction_id));
  }
  const bankIds = rows.map((r) => r.bankId).filter((id): id is string => id !== null && id.length <= 100);
  const external = new Map<string, string>();
  for (let i = 0; i < bankIds.length; i += 500) {
    const found = await db("transactions")
      .where({ user_id: userId, wallet_id: wallet.id })
      .whereIn("external_id", bankIds.slice(i, i + 500))
      .select("id", "external_id");
    for (const f of found) external.set(String(f.external_id), String(f.id));
  }
  const targets = new Set([...known.values()]);
  const alive = new Set<string>();
  const list = [...targets];
  for (let i = 0; i < list.length; i += 500) {
    for (const f of await byPrimaryKey(db, "transactions")
      .where({ user_id: userId })
      .whereIn("id", list.slice(i, i + 500))
      .select("id"))
      alive.add(String(f.id));
  }
  for (const r of rows) {
    if (r.status !== "new") continue;
    // A row with a bank id is known by that id only: another id with the same content is another transaction.
    const hit = r.bankId !== null ? (known.get(r.keys[0]!) ?? external.get(r.bankId)) : known.get(r.keys[0]!);
    if (hit !== undefined) Object.assign(r, { status: "duplicate", of: hit, ofDeleted: !alive.has(hit) && !external.has(r.bankId ?? "") });
  }
}

/**
 * Layer 3: a transaction of the wallet with the same signed amount at most FUZZY_DAYS away, each claimed by
 * one row at most (docs/decisions.md#fuzzy-match-by-amount). The payee does not decide: a hand-typed
 * "Hausverwaltung Müller" is the bank's "Miete November Whg 3" by amount and date. It only ranks the
 * candidates (a similar payee first, then the nearest date). A transaction that was itself imported must
 * also have a similar payee: a bank's own text varies little between its exports, and without that two
 * coffees of the same price on consecutive days would ask every month.
 */
async function markPossible(db: Knex, userId: string, wallet: WalletRow, rows: PlannedEntry[]): Promise<void> {
  const open = rows.filter((r) => r.status === "new");
  if (open.length === 0) return;
  const dates = open.map((r) => r.date!).sort();
  const claimed = new Set(rows.filter((r) => r.status === "duplicate" && r.of !== null).map((r) => r.of!));
  // Only the statement's amounts are read (index transactions_user_wallet_amount_date): the candidates of a
  // row have its amount, so a call reads what its rows could match, never every transaction of its dates
  // (issue 41, docs/history/perf-import-growth.md). Each amount is in one chunk, in (date, id) order. SQLite
  // without statistics would read the wallet's date range instead (src/db/dialect.ts fromWithIndex).
  const amounts = [...new Set(open.map((r) => String(r.minor!)))];
  const range = [addDays(dates[0]!, -FUZZY_DAYS), addDays(dates[dates.length - 1]!, FUZZY_DAYS)] as const;
  const found: Record<string, unknown>[] = [];
  for (let i = 0; i < amounts.length; i += 500)
    found.push(
      ...(await fromWithIndex(db, "transactions", "transactions_user_wallet_amount_date")
        .where({ user_id: userId, wallet_id: wallet.id })
        .whereIn("amount_minor", amounts.slice(i, i + 500))
        .andWhereBetween("date", [...range])
        .select("id", "date", "amount_minor", "payee", "external_id")
        .orderBy([{ column: "date" }, { column: "id" }])),
    );
  const existing = found.map((raw) => ({
    id: String(raw.id),
    date: String(raw.date),
    minor: BigInt(raw.amount_minor as string),
    payee: raw.payee == null ? null : String(raw.payee),
    externalId: raw.external_id == null ? null : String(raw.external_id),
  }));
  const imported = await importedIds(
    db,
    userId,
    wallet.id,
    existing.map((e) => e.id),
  );
  const { matches } = matchPossible(
    open.map((r) => ({ date: r.date!, minor: r.minor!, payee: r.payee, bankId: r.bankId })),
    existing.map((e) => ({ ...e, imported: imported.has(e.id) })),
    claimed,
  );
  open.forEach((r, i) => {
    const of = matches[i];
    if (of != null) Object.assign(r, { status: "possible_duplicate", of });
  });
}

/**
 * Which of these transactions an import created (they have keys in the wallet's import ledger), by the
 * ledger's index on transaction_id: the primary key (user, wallet, key) would read the whole ledger.
 */
async function importedIds(db: Knex, userId: string, walletId: string, ids: readonly string[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (let i = 0; i < ids.length; i += 500) {
    const found = await fromWithIndex(db, "import_keys", "import_keys_transaction")
      .where({ user_id: userId, wallet_id: walletId })
      .whereIn("transaction_id", ids.slice(i, i + 500))
      .distinct("transaction_id");
    for (const f of found) out.add(String(f.transaction_id));
  }
  return out;
}

async function record(db: Knex, userId: string, wallet: WalletRow, rows: PlannedEntry[], input: ImportInput): Promise<Transaction[]> {
  if (rows.length === 0) return [];
  const at = input.now.toISOString();
  const inserted: ReturnType<typeof row>[] = [];
  for (const r of rows) {
    if (inserted.length % 256 === 255) await breathe();
    inserted.push(row(r));
  }
  function row(r: PlannedEntry) {
    const id = input.ids.next("txn");
    r.transactionId = id;
    const payee = r.payee === null ? null : r.payee.normalize("NFC").trim() || null;
    return {
      id,
      user_id: userId,
      wallet_id: wallet.id,
      date: r.date!,
      amount_minor: r.minor!,
      currency: wallet.currency,
      direction: r.minor! < 0n ? "expense" : "income",
      payee,
      description: r.description,
      category: r.category,
      ...foldedKeys({ payee, category: r.category }),
      notes: null,
      external_id: r.bankId !== null && r.bankId.length <= 100 ? r.bankId : null,
      transfer_id: null,
      counterpart_wallet_id: null,
      created_at: at,
      updated_at: at,
    };
  }
  for (let i = 0; i < inserted.length; i += 100) await db("transactions").insert(inserted.slice(i, i + 100));
  await assertRunningTotals(db, userId, [wallet], "statement");
  const tags = rows.flatMap((r) => normalizeTags(r.tags).map((tag) => ({ transaction_id: r.transactionId!, user_id: userId, tag })));
  for (let i = 0; i < tags.length; i += 300) await db("transaction_tags").insert(tags.slice(i, i + 300));
  const keys = rows.flatMap((r) => r.keys.map((key) => ({ user_id: userId, wallet_id: wallet.id, key, transaction_id: r.transactionId!, created_at: at })));
  for (let i = 0; i < keys.length; i += 200)
    await db("import_keys")
      .insert(keys.slice(i, i + 200))
      .onConflict(["user_id", "wallet_id", "key"])
      .ignore();
  // An income filed (by a rule) in a category the person spends in is a refund (docs/ledger.md, "Refunds").
  const filedIncome = inserted.filter((r) => r.direction === "income" && r.category_key !== null).map((r) => r.id);
  const refunds = new Set<string>();
  if (filedIncome.length > 0) {
    await markRefunds(db, userId, filedIncome);
    for (let i = 0; i < filedIncome.length; i += 500) {
      const found = await byPrimaryKey(db, "transactions")
        .where({ user_id: userId, refund: 1 })
        .whereIn("id", filedIncome.slice(i, i + 500))
        .select("id");
      for (const r of found) refunds.add(String(r.id));
    }
  }
  const out: Transaction[] = [];
  for (const [i, row] of inserted.entries()) {
    if (i % 256 === 255) await breathe();
    out.push(transactionFromRow(coerceTransactionRow({ ...row, refund: refunds.has(row.id) ? 1 : 0 }), normalizeTags(rows[i]!.tags)));
  }
  return out;
}

/**
 * The stated closing balance against the wallet's balance at the end of that day, after this import (a
 * preview adds the rows it would create), and the rows that most likely explain a difference.
 */
async function reconcile(
  db: Knex,
  userId: string,
  wallet: WalletRow,
  parsed: ParsedStatement,
  rows: readonly PlannedEntry[],
  toCreate: readonly PlannedEntry[],
): Promise<Reconciliation | null> {
  if (parsed.closing === null) return null;
  const stated = rowMinor(parsed.closing.amount, wallet.currency);
  const statedMinor = "minor" in stated ? stated.minor : /^-?0*(\.0*)?$/.test(parsed.closing.amount) ? 0n : null;
  if (statedMinor === null) return null;
  const sums = await ledgerSums(db, userId, { walletIds: [wallet.id], asOf: parsed.closing.date });
  const closing = parsed.closing.date;
  const inPeriod = (r: PlannedEntry) => r.date !== null && r.minor !== null && r.date <= closing;
  const createdSum = toCreate.filter(inPeriod).reduce((sum, r) => sum + r.minor!, 0n);
  const ledger = balanceOf(wallet, sums, closing);
  // Reckoned before the commit writes: the ledger and the rows it creates.
  const balance = ledger + createdSum;
  const difference = statedMinor - balance;
  const creating = new Set(toCreate.map((r) => r.row));
  return {
    date: parsed.closing.date,
    statement_balance: formatMinor(statedMinor, wallet.currency),
    wallet_balance: formatMinor(balance, wallet.currency),
    difference: formatMinor(difference, wallet.currency),
    likely_rows:
      difference === 0n
        ? []
        : likelyRows(
            difference,
            toCreate.filter(inPeriod),
            rows.filter((r) => inPeriod(r) && !creating.has(r.row) && r.status !== "duplicate" && r.status !== "not_booked"),
          ),
    differenceBefore: difference + createdSum,
    differenceMinor: difference,
    walletMinor: balance,
  };
}

/**
 * Rows that explain a difference (statement minus wallet) exactly: one created row whose removal closes
 * it (its amount is minus the difference), or one row left out (a possible duplicate, an invalid row)
 * whose import would (its amount is the difference); else two such rows. Linear: a map of amounts, no
 * search over subsets. Empty when nothing explains it in one or two rows.
 */
function likelyRows(difference: bigint, created: readonly PlannedEntry[], leftOut: readonly PlannedEntry[]): number[] {
  const single = (list: readonly PlannedEntry[], target: bigint) => list.find((r) => r.minor === target);
  const pair = (list: readonly PlannedEntry[], target: bigint): number[] | null => {
    const seen = new Map<bigint, PlannedEntry>();
    for (const r of list) {
      const other = seen.get(target - r.minor!);
      if (other !== undefined) return [other.row, r.row];
      if (!seen.has(r.minor!)) seen.set(r.minor!, r);
    }
    return null;
  };
  const one = single(created, -difference) ?? single(leftOut, difference);
  if (one !== undefined) return [one.row];
  return pair(created, -difference) ?? pair(leftOut, difference) ?? [];
}
