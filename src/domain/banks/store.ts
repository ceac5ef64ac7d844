/**
 * The stored bank connections and their accounts (migration 20261129080000): rows as read from either
 * driver. The sealed Access URL never leaves this area except to src/banks/simplefin.ts.
 */
import type { Knex } from "knex";
import type { Config } from "../../config.js";
import { sealingKeys, seal, unseal } from "../../banks/credentials.js";
import { sanitizeBridgeText } from "./sanitize.js";

export interface ConnectionRow {
  id: string;
  user_id: string;
  bridge: string;
  access_sealed: string;
  sync_from: string;
  synced_to: number | null;
  last_sync_at: string | null;
  last_status: "ok" | "failed" | null;
  last_errors: string[];
  next_sync_at: string;
  created_at: string;
}

export interface BankAccountRow {
  connection_id: string;
  account_id: string;
  name: string;
  org: string | null;
  currency: string;
  wallet_id: string | null;
  skip_reason: string | null;
  balance: string | null;
  balance_date: number | null;
  opening: string | null;
}

function connectionOf(raw: Record<string, unknown>): ConnectionRow {
  let errors: string[] = [];
  try {
    errors = raw.last_errors == null ? [] : (JSON.parse(String(raw.last_errors)) as string[]);
  } catch {
    errors = [];
  }
  return {
    id: String(raw.id),
    user_id: String(raw.user_id),
    bridge: String(raw.bridge),
    access_sealed: String(raw.access_sealed),
    sync_from: String(raw.sync_from),
    synced_to: raw.synced_to == null ? null : Number(raw.synced_to),
    last_sync_at: raw.last_sync_at == null ? null : String(raw.last_sync_at),
    last_status: raw.last_status == null ? null : (String(raw.last_status) as "ok" | "failed"),
    last_errors: errors.map(sanitizeBridgeText),
    next_sync_at: String(raw.next_sync_at),
    created_at: String(raw.created_at),
  };
}

function accountOf(raw: Record<string, unknown>): BankAccountRow {
  const text = (v: unknown) => (v == null ? null : String(v));
  return {
    connection_id: String(raw.connection_id),
    account_id: String(raw.account_id),
    name: String(raw.name),
    org: text(raw.org),
    currency: String(raw.currency),
    wallet_id: text(raw.wallet_id),
    skip_reason: text(raw.skip_reason),
    balance: text(raw.balance),
    balance_date: raw.balance_date == null ? null : Number(raw.balance_date),
    opening: text(raw.opening),
  };
}

export async function connectionsOf(db: Knex, userId: string, connectionId?: string): Promise<ConnectionRow[]> {
  const q = db("bank_connections").where({ user_id: userId });
  if (connectionId !== undefined) q.andWhere({ id: connectionId });
  return (await q.orderBy("created_at").orderBy("id").select("*")).map(connectionOf);
}

export async function accountsOf(db: Knex, userId: string, connectionIds: readonly string[]): Promise<BankAccountRow[]> {
  if (connectionIds.length === 0) return [];
  const rows = await db("bank_accounts")
    .where({ user_id: userId })
    .whereIn("connection_id", [...connectionIds])
    .orderBy("connection_id")
    .orderBy("name")
    .orderBy("account_id")
    .select("*");
  return rows.map(accountOf);
}

/** The associated data of a connection's sealed URL: it opens on its own row only. */
const sealContext = (userId: string, connectionId: string) => `bank_connections ${userId} ${connectionId}`;

export async function sealAccess(db: Knex, config: Config, userId: string, connectionId: string, accessUrl: string): Promise<string> {
  return seal(await sealingKeys(db, config), accessUrl, sealContext(userId, connectionId));
}

export async function openAccess(db: Knex, config: Config, row: ConnectionRow): Promise<string> {
  return unseal(await sealingKeys(db, config), row.access_sealed, sealContext(row.user_id, row.id));
}

/** Disconnects: the connection, its accounts and so its credential are deleted. Answers whether it existed. */
export async function deleteConnection(db: Knex, userId: string, connectionId: string): Promise<boolean> {
  await db("bank_accounts").where({ user_id: userId, connection_id: connectionId }).delete();
  return (await db("bank_connections").where({ user_id: userId, id: connectionId }).delete()) > 0;
}
