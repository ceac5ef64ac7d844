/**
 * Connecting a bank over SimpleFIN (docs/history/bank-connections.md): the person pastes a setup token on /account or to
 * `finance-mcp bank connect`, never into a chat. The server decodes it, claims the Access URL once (the
 * claim cannot be repeated, so the connection is stored, sealed, before anything else can fail), reads the
 * accounts of the first window, and the person links each account to a wallet of its currency, a new
 * one, or none. An account in a custom currency (a URL instead of an ISO code) is listed and skipped.
 */
import type { Knex } from "knex";
import type { Config } from "../../config.js";
import type { DomainContext } from "../../context.js";
import { AppError, invalidParams } from "../../errors.js";
import { BankError, claimAccessUrl, decodeSetupToken, readAccounts, type AccountSet, type SfinAccount } from "../../banks/simplefin.js";
import { addDays } from "../../calendar/days.js";
import { startOfDayIn, todayOf } from "../../calendar/time-zones.js";
import { isKnownCurrency } from "../../money/currencies.js";
import { formatMinor } from "../../money/amount.js";
import { rowMinor } from "../imports/amounts.js";
import { createWallet } from "../wallets/write.js";
import { getWalletRow } from "../wallets/store.js";
import { normalizeWalletName } from "../wallets/names.js";
import { accountsOf, connectionsOf, deleteConnection, sealAccess, type BankAccountRow } from "./store.js";
import { sanitizeBridgeErrors } from "./sanitize.js";

/** What connecting and syncing read of a call besides the domain context: the server's configuration. */
export interface BankContext extends DomainContext {
  readonly config: Config;
}

export const DEFAULT_WINDOW_DAYS = 90;
export const MAX_WINDOW_DAYS = 730;
/** Connections one person may hold (each is a credential to keep; a bridge has one per bank login). */
export const MAX_CONNECTIONS = 10;
/** Accounts kept per connection (a bridge's further accounts are left out, and said so): bounds every answer. */
export const MAX_ACCOUNTS = 20;

export interface Connected {
  connection_id: string;
  bridge: string;
  accounts: BankAccountRow[];
  /** The bridge's errors, sanitised, or ours when reading the accounts failed after the claim. */
  errors: string[];
}

/** A setup token's claim, stored sealed, and the accounts of the first window. */
export async function connectBank(ctx: BankContext, input: { setupToken: string; days?: number }): Promise<Connected> {
  const { db, config } = ctx;
  const userId = ctx.caller.userId;
  const days = input.days ?? DEFAULT_WINDOW_DAYS;
  if (!Number.isInteger(days) || days < 1 || days > MAX_WINDOW_DAYS)
    throw invalidParams("days", `a whole number of days from 1 to ${MAX_WINDOW_DAYS}`, `days: the first sync reads 1 to ${MAX_WINDOW_DAYS} days back.`);
  const held = await db("bank_connections").where({ user_id: userId }).count({ n: "*" }).first();
  if (Number(held?.n ?? 0) >= MAX_CONNECTIONS)
    throw invalidParams(
      "setup_token",
      `at most ${MAX_CONNECTIONS} connections`,
      `setup_token: you already have ${MAX_CONNECTIONS} bank connections; disconnect one first.`,
    );
  let claimUrl: URL;
  try {
    claimUrl = decodeSetupToken(input.setupToken);
  } catch (err) {
    throw asFieldError(err);
  }
  const options = { allowPrivate: config.banks.allowPrivate };
  let accessUrl: string;
  try {
    accessUrl = await claimAccessUrl(claimUrl, options);
  } catch (err) {
    throw asFieldError(err);
  }
  const id = ctx.ids.next("bnk");
  const now = ctx.now();
  const syncFrom = addDays(todayOf(ctx), -days);
  await db("bank_connections").insert({
    id,
    user_id: userId,
    bridge: claimUrl.host,
    access_sealed: await sealAccess(db, config, userId, id, accessUrl),
    sync_from: syncFrom,
    synced_to: null,
    last_sync_at: null,
    last_status: null,
    last_errors: null,
    next_sync_at: now.toISOString(),
    created_at: now.toISOString(),
  });
  let set: AccountSet;
  try {
    const start = Math.floor(startOfDayIn(ctx.caller.timezone, syncFrom).getTime() / 1000);
    set = await readAccounts(accessUrl, { start, end: Math.floor(now.getTime() / 1000) + 1, pending: false }, options);
  } catch (err) {
    const message = err instanceof BankError ? err.message : "reading the accounts failed";
    await db("bank_connections")
      .where({ id })
      .update({ last_status: "failed", last_errors: JSON.stringify([message]) });
    return { connection_id: id, bridge: claimUrl.host, accounts: [], errors: [message] };
  }
  await rememberAccounts(db, userId, id, set.accounts, true);
  const errors = sanitizeBridgeErrors(set.errors);
  if (errors.length > 0)
    await db("bank_connections")
      .where({ id })
      .update({ last_errors: JSON.stringify(errors) });
  return { connection_id: id, bridge: claimUrl.host, accounts: await accountsOf(db, userId, [id]), errors };
}

/** Why an account's currency cannot be kept, or null: the ledger holds ISO 4217 currencies only. */
export function currencyProblem(currency: string): string | null {
  if (/^https?:\/\//i.test(currency))
    return `its currency is a custom one (${currency.slice(0, 100)}), such as points or miles; the service keeps ISO 4217 currencies only, so it is not synced`;
  if (!isKnownCurrency(currency))
    return `its currency ${JSON.stringify(String(currency).slice(0, 20))} is not an ISO 4217 code the service knows, so it is not synced`;
  return null;
}

/**
 * The bridge's accounts, each new one stored (unlinked, or skipped with its reason); a known one keeps its
 * link. `withOpening`: the Account Set holds the first window, so each account's balance before it is
 * known (a new wallet opens with it, and the first sync then reconciles to 0.00).
 */
export async function rememberAccounts(db: Knex, userId: string, connectionId: string, accounts: readonly SfinAccount[], withOpening: boolean): Promise<void> {
  const known = new Set((await accountsOf(db, userId, [connectionId])).map((a) => a.account_id));
  for (const a of accounts) {
    if (known.has(a.id) || known.size >= MAX_ACCOUNTS) continue;
    known.add(a.id);
    const problem = currencyProblem(a.currency);
    await db("bank_accounts").insert({
      connection_id: connectionId,
      user_id: userId,
      account_id: a.id.slice(0, 255),
      name: a.name.slice(0, 100),
      org: a.orgName?.slice(0, 255) ?? null,
      currency: a.currency.slice(0, 255),
      wallet_id: null,
      skip_reason: problem,
      balance: a.balance,
      balance_date: Math.floor(a.balanceDate),
      opening: problem === null && withOpening ? openingOf(a) : null,
    });
  }
}

/** The balance less the posted transactions up to the balance date: what the account held before the window. */
function openingOf(a: SfinAccount): string | null {
  const balance = rowMinor(a.balance.replace(/^\+/, ""), a.currency);
  const zero = /^[+-]?0*(\.0*)?$/.test(a.balance);
  if (!("minor" in balance) && !zero) return null;
  let sum = "minor" in balance ? balance.minor : 0n;
  for (const t of a.transactions) {
    if (t.pending || t.posted > a.balanceDate) continue;
    const m = rowMinor(t.amount.replace(/^\+/, ""), a.currency);
    if ("minor" in m) sum -= m.minor;
  }
  return formatMinor(sum, a.currency);
}

/** new: a wallet made from the account; skip: not synced; else the id of a wallet of the account's currency. */
export type LinkChoice = "new" | "skip" | string;

/**
 * Links the connection's accounts as the person chose (an account not named keeps its link, or none).
 * A wallet must be the person's and in the account's currency; a new wallet is named after the account
 * and opens with the balance before the first window.
 */
export async function linkAccounts(
  ctx: BankContext,
  input: { connectionId: string; choices: Readonly<Record<string, LinkChoice>> },
): Promise<BankAccountRow[]> {
  const { db } = ctx;
  const userId = ctx.caller.userId;
  const [connection] = await connectionsOf(db, userId, input.connectionId);
  if (connection === undefined) throw new AppError("not_found", `connection_id: no bank connection ${input.connectionId}.`, { field: "connection_id" });
  const accounts = await accountsOf(db, userId, [connection.id]);
  const byId = new Map(accounts.map((a) => [a.account_id, a]));
  for (const [accountId, choice] of Object.entries(input.choices)) {
    const a = byId.get(accountId);
    if (a === undefined)
      throw invalidParams(
        "account_id",
        "an account of this connection",
        `account_id: the connection has no account ${JSON.stringify(accountId.slice(0, 60))}.`,
      );
    if (a.skip_reason !== null && choice !== "skip")
      throw invalidParams("account_id", "an account that can be synced", `account_id: ${a.name} cannot be synced: ${a.skip_reason}.`);
    let walletId: string | null = null;
    if (choice === "new") walletId = await newWalletFor(ctx, a, connection.sync_from);
    else if (choice !== "skip") {
      const wallet = await getWalletRow(db, userId, choice, "wallet_id");
      if (wallet.currency !== a.currency)
        throw invalidParams(
          "wallet_id",
          `a wallet in ${a.currency}`,
          `wallet_id: the account ${a.name} is in ${a.currency} but the wallet ${JSON.stringify(wallet.name)} holds ${wallet.currency}; pick a wallet in ${a.currency} or a new one.`,
        );
      const taken = await db("bank_accounts")
        .where({ user_id: userId, wallet_id: wallet.id })
        .whereNot({ connection_id: connection.id, account_id: a.account_id })
        .first("name");
      if (taken)
        throw invalidParams(
          "wallet_id",
          "a wallet no other bank account syncs into",
          `wallet_id: the wallet ${JSON.stringify(wallet.name)} already receives the account ${String(taken.name)}.`,
        );
      walletId = wallet.id;
    }
    await db("bank_accounts").where({ user_id: userId, connection_id: connection.id, account_id: a.account_id }).update({ wallet_id: walletId });
  }
  return accountsOf(db, userId, [connection.id]);
}

const WALLET_TYPES: readonly [RegExp, string][] = [
  [/credit|card|visa|mastercard|amex/i, "credit_card"],
  [/saving|savings|spar/i, "savings"],
  [/loan|mortgage|kredit/i, "loan"],
  [/brokerage|invest|ira|401k|depot/i, "investment"],
];

async function newWalletFor(ctx: BankContext, a: BankAccountRow, syncFrom: string): Promise<string> {
  const type = WALLET_TYPES.find(([re]) => re.test(a.name))?.[1] ?? "checking";
  // The account's name, or with its bank's, or numbered: never a clash with a wallet the person has.
  const names = [a.name, `${a.name} (${a.org ?? "bank"})`, ...[2, 3, 4, 5, 6, 7, 8, 9].map((n) => `${a.name} ${n}`)];
  for (const candidate of names) {
    const { key } = normalizeWalletName(candidate);
    if (await ctx.db("wallets").where({ user_id: ctx.caller.userId, name_normalized: key }).first("id")) continue;
    const wallet = await createWallet(ctx, {
      name: candidate.slice(0, 100),
      type,
      currency: a.currency,
      ...(a.opening === null ? {} : { opening_balance: a.opening, opening_date: syncFrom }),
      notes: `Synced from ${a.org ?? "a bank"} over SimpleFIN.`,
    });
    return wallet.id;
  }
  throw invalidParams(
    "account_id",
    "an account whose name is free",
    `account_id: wallets named ${JSON.stringify(a.name)} 1 to 9 exist already; rename one and try again.`,
  );
}

/** Disconnects a connection: its credential and accounts are deleted; the wallets and their transactions stay. */
export async function disconnectBank(ctx: BankContext, input: { connectionId: string }): Promise<void> {
  if (!(await deleteConnection(ctx.db, ctx.caller.userId, input.connectionId)))
    throw new AppError("not_found", `connection_id: no bank connection ${input.connectionId}.`, { field: "connection_id" });
}

function asFieldError(err: unknown): unknown {
  if (!(err instanceof BankError)) return err;
  return invalidParams("setup_token", "a SimpleFIN setup token not yet claimed, from an https bridge", `setup_token: ${err.message}`);
}
