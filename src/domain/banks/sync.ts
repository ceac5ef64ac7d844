/**
 * sync_bank_connections (docs/history/bank-connections.md): each connection's Account Set is read from its bridge before the
 * write's transaction opens (fetchBankData, the handler's prepare: no connection waits on a bank), then
 * each linked account's posted transactions go through the statement import (src/domain/imports), so a
 * sync is the same truth as a statement:
 *   - the bridge's transaction id is the row's bank id, an import key: a sync never duplicates itself,
 *     whatever the bridge repeats or reorders;
 *   - a row the person typed or imported, with the same amount at most a few days away (the payee only
 *     ranks), is that transaction: it is not created again, and the bridge id is remembered for it;
 *   - pending transactions are not booked; the posted one is, when it arrives (under whatever id);
 *   - a known id whose amount the bridge changed is left as it is and named in a warning;
 *   - the wallet is reconciled against the account's balance at its balance-date, and a difference is a
 *     warning naming the likely transactions.
 * One account creates at most the bulk row cap per sync (the oldest rows first; the rest the next sync).
 */
import type { Knex } from "knex";
import type { ToolContext } from "../../context.js";
import { limits } from "../../../generated/limits.js";
import { AppError } from "../../errors.js";
import { BankError, readAccounts, type AccountSet, type SfinAccount } from "../../banks/simplefin.js";
import { sealedWithCurrent, sealingKeys } from "../../banks/credentials.js";
import { UnsealError } from "../../banks/credentials.js";
import { startOfDayIn, todayInTimeZone } from "../../calendar/time-zones.js";
import { formatMinor } from "../../money/amount.js";
import type { StatementEntry } from "../../statements/types.js";
import { importStatement, type ImportOutcome } from "../imports/import.js";
import type { Transaction } from "../../../generated/types.js";
import type { BankContext } from "./connect.js";
import { rememberAccounts } from "./connect.js";
import { accountsOf, connectionsOf, openAccess, sealAccess, type BankAccountRow, type ConnectionRow } from "./store.js";
import { sanitizeBridgeErrors } from "./sanitize.js";

/** Posted rows can be dated days before they reach the bridge: each sync reads this far behind the last. */
export const OVERLAP_DAYS = 10;
/** The whole of a sync's reading, every connection together: a slow bridge cannot hold a call longer. */
export const SYNC_READ_BUDGET_MS = 60_000;
const DAY = 86_400;

export interface FetchedConnection {
  connection: ConnectionRow;
  set: AccountSet | null;
  error: string | null;
  window: { start: number; end: number };
}

export interface FetchedBanks {
  connections: FetchedConnection[];
}

/** Reads each of the person's connections (or the one named) from its bridge; a failure is kept, not thrown. */
export async function fetchBankData(ctx: Pick<ToolContext, "db" | "config" | "caller" | "now">, params: { connection_id?: string }): Promise<FetchedBanks> {
  const { db, config } = ctx;
  const rows = await connectionsOf(db, ctx.caller.userId, params.connection_id);
  if (params.connection_id !== undefined && rows.length === 0)
    throw new AppError("not_found", `connection_id: no bank connection ${params.connection_id}; list_bank_connections shows yours.`, {
      field: "connection_id",
    });
  const deadline = Date.now() + SYNC_READ_BUDGET_MS;
  const end = Math.floor(ctx.now().getTime() / 1000) + 1;
  const out: FetchedConnection[] = [];
  for (const connection of rows) {
    const first = Math.floor(startOfDayIn(ctx.caller.timezone, connection.sync_from).getTime() / 1000);
    const start = connection.synced_to === null ? first : Math.max(first, connection.synced_to - OVERLAP_DAYS * DAY);
    const window = { start, end };
    const left = deadline - Date.now();
    if (left <= 1000) {
      out.push({ connection, set: null, error: "this sync ran out of time before reading this connection; the next sync reads it", window });
      continue;
    }
    try {
      const access = await openAccess(db, config, connection);
      const set = await readAccounts(access, { ...window, pending: true }, { allowPrivate: config.banks.allowPrivate, timeoutMs: Math.min(30_000, left) });
      out.push({ connection, set, error: null, window });
    } catch (err) {
      if (!(err instanceof BankError || err instanceof UnsealError)) throw err;
      out.push({ connection, set: null, error: err.message, window });
    }
  }
  return { connections: out };
}

export interface AccountSynced {
  account: string;
  wallet_id: string | null;
  skipped: string | null;
  created: number;
  matched: number;
  pending: number;
  reconciliation: { date: string; bank_balance: string; wallet_balance: string; difference: string } | null;
}

export interface ConnectionSynced {
  connection_id: string;
  bridge: string;
  synced: boolean;
  error: string | null;
  bridge_errors: string[];
  accounts: AccountSynced[];
}

export interface SyncWarning {
  code: string;
  message: string;
}

export interface SyncOutcome {
  importId: string;
  warnings: SyncWarning[];
  connections: ConnectionSynced[];
  created: Transaction[];
}

/** Books what fetchBankData read, inside the write's transaction (a dry run is rolled back by the pipeline). */
export async function syncFetched(ctx: BankContext, fetched: FetchedBanks): Promise<SyncOutcome> {
  const { db } = ctx;
  const userId = ctx.caller.userId;
  const importId = ctx.ids.next("imp");
  const warnings: SyncWarning[] = [];
  const created: Transaction[] = [];
  const connections: ConnectionSynced[] = [];
  const now = ctx.now();
  const next = new Date(now.getTime() + Math.max(ctx.config.banks.syncIntervalSeconds, 3600) * 1000).toISOString();
  if (fetched.connections.length === 0)
    warnings.push({
      code: "no_bank_connection",
      message:
        "No bank is connected. The person connects one on the account page (/account) or with finance-mcp bank connect; a setup token never goes through a chat.",
    });
  for (const f of fetched.connections) {
    const c = f.connection;
    if (f.set === null) {
      warnings.push({ code: "bridge_failed", message: `${c.bridge}: ${f.error}` });
      await db("bank_connections")
        .where({ user_id: userId, id: c.id })
        .update({ last_sync_at: now.toISOString(), last_status: "failed", last_errors: JSON.stringify([f.error]), next_sync_at: next });
      connections.push({ connection_id: c.id, bridge: c.bridge, synced: false, error: f.error, bridge_errors: [], accounts: [] });
      continue;
    }
    await rememberAccounts(db, userId, c.id, f.set.accounts, false);
    const linked = new Map((await accountsOf(db, userId, [c.id])).map((a) => [a.account_id, a]));
    const accounts: AccountSynced[] = [];
    let syncedTo = f.window.end;
    for (const account of f.set.accounts) {
      const row = linked.get(account.id.slice(0, 255));
      if (row === undefined) continue;
      const done = await syncAccount(db, ctx, row, account);
      accounts.push(done.synced);
      warnings.push(...done.warnings);
      created.push(...done.created);
      if (done.cutAt !== null) syncedTo = Math.min(syncedTo, done.cutAt);
      await db("bank_accounts")
        .where({ user_id: userId, connection_id: c.id, account_id: row.account_id })
        .update({ balance: account.balance, balance_date: Math.floor(account.balanceDate) });
    }
    const bridgeErrors = sanitizeBridgeErrors(f.set.errors);
    for (const e of bridgeErrors) warnings.push({ code: "bridge_says", message: `${c.bridge} says (its words, sanitised): ${e}` });
    // A key rotated since the last sync: the credential is sealed again under the current key.
    const keys = await sealingKeys(db, ctx.config);
    const resealed = sealedWithCurrent(keys, c.access_sealed)
      ? {}
      : { access_sealed: await sealAccess(db, ctx.config, userId, c.id, await openAccess(db, ctx.config, c)) };
    await db("bank_connections")
      .where({ user_id: userId, id: c.id })
      .update({
        ...resealed,
        synced_to: syncedTo,
        last_sync_at: now.toISOString(),
        last_status: "ok",
        last_errors: JSON.stringify(bridgeErrors),
        next_sync_at: next,
      });
    connections.push({ connection_id: c.id, bridge: c.bridge, synced: true, error: null, bridge_errors: bridgeErrors, accounts });
  }
  return { importId, warnings, connections, created };
}

interface AccountDone {
  synced: AccountSynced;
  warnings: SyncWarning[];
  created: Transaction[];
  /** The posted time of the first row left for the next sync (the row cap), or null. */
  cutAt: number | null;
}

async function syncAccount(db: Knex, ctx: BankContext, row: BankAccountRow, account: SfinAccount): Promise<AccountDone> {
  const base: AccountSynced = { account: row.name, wallet_id: row.wallet_id, skipped: null, created: 0, matched: 0, pending: 0, reconciliation: null };
  if (row.skip_reason !== null) return { synced: { ...base, skipped: row.skip_reason }, warnings: [], created: [], cutAt: null };
  if (row.wallet_id === null)
    return { synced: { ...base, skipped: "not linked to a wallet: link it on the account page" }, warnings: [], created: [], cutAt: null };
  const tz = ctx.caller.timezone;
  const pending = account.transactions.filter((t) => t.pending);
  // Oldest first, whatever order the bridge sent: the row cap keeps the oldest and the next sync the rest.
  const posted = account.transactions.filter((t) => !t.pending).sort((a, b) => a.posted - b.posted || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const entries = (list: typeof posted): StatementEntry[] =>
    list.map((t, i) => ({
      row: i + 1,
      date: todayInTimeZone(tz, new Date(t.posted * 1000)),
      amount: t.amount,
      payee: (t.payee ?? t.description).trim() || null,
      description: t.payee !== null && t.description.trim() !== "" ? t.description : null,
      bankId: t.id,
      currency: null,
      error: null,
    }));
  const closing = { date: todayInTimeZone(tz, new Date(account.balanceDate * 1000)), amount: account.balance };
  const run = (list: typeof posted) =>
    importStatement(db, ctx.caller.userId, {
      walletId: row.wallet_id!,
      statement: "",
      source: "bridge",
      // A bridge's rows are in the OFX model (bank ids, a ledger balance); format is read for CSV only.
      prepared: {
        parsed: { format: "ofx", rows: entries(list), currency: account.currency, opening: null, closing, mapping: null },
        card: false,
        remembered: null,
        overruled: null,
      },
      importRows: [],
      skipInvalid: true,
      dryRun: ctx.dryRun === true,
      now: ctx.now(),
      ids: ctx.ids,
    });
  let outcome: ImportOutcome;
  let cutAt: number | null = null;
  try {
    outcome = await run(posted);
  } catch (err) {
    // More new rows than one bulk write may create: the oldest cap's worth now, the rest at the next sync.
    if (!(err instanceof AppError && err.errorName === "invalid_params" && posted.length > limits.bulkWriteRows)) throw err;
    cutAt = posted[limits.bulkWriteRows]!.posted;
    outcome = await run(posted.slice(0, limits.bulkWriteRows));
  }
  const warnings: SyncWarning[] = [];
  const name = `${row.name} (${row.wallet_id})`;
  if (cutAt !== null)
    warnings.push({
      code: "row_cap",
      message: `${name}: the bridge sent more new transactions than one sync books (${limits.bulkWriteRows}); the oldest were booked, the next sync books the rest.`,
    });
  const twins = outcome.rows.filter((r) => r.status === "possible_duplicate" && r.of !== null);
  // The bridge id is remembered for the transaction it matched: the next sync knows it by id.
  const twinKeys = twins.map((r) => ({
    user_id: ctx.caller.userId,
    wallet_id: row.wallet_id!,
    key: r.keys[0]!,
    transaction_id: r.of!,
    created_at: ctx.now().toISOString(),
  }));
  for (let i = 0; i < twinKeys.length; i += 200)
    await db("import_keys")
      .insert(twinKeys.slice(i, i + 200))
      .onConflict(["user_id", "wallet_id", "key"])
      .ignore();
  warnings.push(...(await changedAmounts(db, ctx.caller.userId, outcome, account.currency, name)));
  const invalid = outcome.rows.filter((r) => r.status === "invalid");
  if (invalid.length > 0)
    warnings.push({
      code: "rows_left_out",
      message: `${name}: ${invalid.length} transaction${invalid.length === 1 ? "" : "s"} of the bridge could not be read and ${invalid.length === 1 ? "was" : "were"} left out (first: ${invalid[0]!.reason}).`,
    });
  if (pending.length > 0) {
    const sum = pending.reduce((s, t) => s + Number(t.amount), 0);
    warnings.push({
      code: "pending_not_booked",
      message: `${name}: ${pending.length} pending transaction${pending.length === 1 ? "" : "s"} (${sum.toFixed(2)} ${account.currency}) ${pending.length === 1 ? "is" : "are"} not booked until posted.`,
    });
  }
  const rec = outcome.reconciliation;
  if (rec !== null && rec.differenceMinor !== 0n && cutAt === null) {
    const byRow = new Map(outcome.rows.map((r) => [r.row, r]));
    const likely = rec.likely_rows.map((n) => {
      const r = byRow.get(n)!;
      return `${r.transactionId ?? r.of ?? `bridge transaction ${r.bankId}`} (${r.date}, ${r.minor === null ? "?" : formatMinor(r.minor, account.currency)})`;
    });
    warnings.push({
      code: "balance_differs",
      message: `${name}: the bank says ${rec.statement_balance} ${account.currency} on ${rec.date}, the wallet ${rec.wallet_balance} (difference ${rec.difference})${likely.length > 0 ? `; likely: ${likely.join(", ")}` : "; look for a transaction typed by hand twice, or one the bank has that the wallet lacks before the first sync"}.`,
    });
  }
  return {
    synced: {
      ...base,
      created: outcome.toCreate,
      matched: twins.length,
      pending: pending.length,
      reconciliation:
        rec === null ? null : { date: rec.date, bank_balance: rec.statement_balance, wallet_balance: rec.wallet_balance, difference: rec.difference },
    },
    warnings,
    created: outcome.created,
    cutAt,
  };
}

/** Known bridge ids whose amount the bridge now states otherwise: named, never overwritten. */
async function changedAmounts(db: Knex, userId: string, outcome: ImportOutcome, currency: string, name: string): Promise<SyncWarning[]> {
  const known = outcome.rows.filter((r) => r.status === "duplicate" && r.of !== null && !r.of.startsWith("row ") && !r.ofDeleted && r.minor !== null);
  const out: SyncWarning[] = [];
  for (let i = 0; i < known.length; i += 500) {
    const chunk = known.slice(i, i + 500);
    const found = await db("transactions")
      .where({ user_id: userId })
      .whereIn(
        "id",
        chunk.map((r) => r.of!),
      )
      .select("id", "amount_minor");
    const amounts = new Map(found.map((f) => [String(f.id), BigInt(f.amount_minor as string)]));
    for (const r of chunk) {
      const have = amounts.get(r.of!);
      if (have !== undefined && have !== r.minor)
        out.push({
          code: "amount_changed",
          message: `${name}: the bank now states ${formatMinor(r.minor!, currency)} for transaction ${r.of} (${r.date}), which holds ${formatMinor(have, currency)}; it was left as it is: update_transaction if the bank is right.`,
        });
    }
  }
  return out;
}
