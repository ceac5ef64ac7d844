/**
 * Random keys the server generates once and keeps in server_secrets, so that every process over one
 * database signs and checks with the same key: the web key (src/web/secret.ts), the requestState key
 * (src/writes/request-state.ts) and the preview key (src/writes/preview.ts). Two processes starting at once both try to insert; the loser's insert
 * does nothing and both read the winner's row.
 */
import { randomBytes } from "node:crypto";
import type { Knex } from "knex";

export async function storedSecret(db: Knex, name: string, now = new Date()): Promise<Buffer> {
  await db("server_secrets")
    .insert({ name, value: randomBytes(32).toString("base64url"), created_at: now.toISOString() })
    .onConflict("name")
    .ignore();
  const row = (await db("server_secrets").where({ name }).first("value")) as { value: string } | undefined;
  if (!row) throw new Error(`server_secrets: the ${name} key row is missing right after it was inserted`);
  return Buffer.from(row.value, "base64url");
}

const remembered = new WeakMap<Knex, Map<string, Promise<Buffer>>>();

/**
 * storedSecret, read once per database handle and name and kept for the process (a failed read is
 * forgotten, so the next call tries again). Read outside any write's transaction, so a rolled-back dry
 * run never loses a key it made.
 */
export function rememberedSecret(db: Knex, name: string): Promise<Buffer> {
  let byName = remembered.get(db);
  if (!byName) remembered.set(db, (byName = new Map()));
  let key = byName.get(name);
  if (!key) {
    key = storedSecret(db, name);
    key.catch(() => byName.delete(name));
    byName.set(name, key);
  }
  return key;
}
