/**
 * SQL that differs between SQLite and Postgres, for the queries of src/domain: each function answers
 * the same question in the engine's own words, so domain code holds no dialect branch (docs/architecture.md).
 */
import type { Knex } from "knex";
import { dialect } from "./knex.js";

/**
 * `table` read through `index` on SQLite (INDEXED BY), plainly on Postgres. SQLite without statistics
 * (the service never runs ANALYZE) can pick a worse index for some shapes; callers say when (docs/ledger.md).
 */
export function fromWithIndex(db: Knex, table: string, index: string): Knex.QueryBuilder {
  return dialect(db) === "sqlite" ? db.from(db.raw("?? INDEXED BY ??", [table, index])) : db(table);
}

/**
 * `table` found by its primary key on SQLite (the index SQLite makes for the PRIMARY KEY constraint,
 * sqlite_autoindex_<table>_1: a missing one fails loudly), plainly on Postgres. For `user_id = ? AND id
 * IN (…)` SQLite without statistics takes the user_id equality for ten rows and an IN list of more than
 * ten keys for more, so it reads the user's whole range of an index starting with user_id and tests each
 * entry's id: a statement of 500 ids read a million index entries at 1,000,000 transactions
 * (docs/decisions.md#bulk-writes-by-primary-key).
 */
export function byPrimaryKey(db: Knex, table: string): Knex.QueryBuilder {
  return fromWithIndex(db, table, `sqlite_autoindex_${table}_1`);
}

/** byPrimaryKey as SQL text, for a raw statement's table: `table` or `table INDEXED BY …`. */
export function byPrimaryKeySql(db: Knex, table: string): string {
  return dialect(db) === "sqlite" ? `${table} INDEXED BY sqlite_autoindex_${table}_1` : table;
}

/** A correlated subquery selecting, as `alias`, the tags of the transaction whose id is `idColumn` (JSON text on SQLite, an array on Postgres). */
export function tagsOfTransactionSql(db: Knex, idColumn: string, alias: string): string {
  return dialect(db) === "sqlite"
    ? `(SELECT json_group_array(g.tag) FROM transaction_tags g WHERE g.transaction_id = ${idColumn}) AS ${alias}`
    : `ARRAY(SELECT g.tag FROM transaction_tags g WHERE g.transaction_id = ${idColumn}) AS ${alias}`;
}

/** A condition: the JSON array of strings in `column` holds one of `count` bound values (bind them after). */
export function jsonArrayHasAnySql(db: Knex, column: string, count: number): string {
  const slots = Array.from({ length: count }, () => "?").join(", ");
  return dialect(db) === "postgres"
    ? `EXISTS (SELECT 1 FROM json_array_elements_text(${column}::json) g WHERE g IN (${slots}))`
    : `EXISTS (SELECT 1 FROM json_each(${column}) g WHERE g.value IN (${slots}))`;
}

/**
 * LEFT JOIN of the elements of a JSON array column of text (a split part's tags), one row each as
 * `alias.value`, none (a NULL value) when the column is NULL or the array empty.
 */
export function partTagsJoinSql(db: Knex, column: string, alias: string): string {
  return dialect(db) === "postgres"
    ? `LEFT JOIN LATERAL json_array_elements_text(${column}::json) AS ${alias}(value) ON TRUE`
    : `LEFT JOIN json_each(${column}) AS ${alias}`;
}

/**
 * A transaction's tags_key as the tag triggers write it from its sorted, folded tags: json_agg's text on
 * Postgres (`["a", "b"]`, a space after each comma), json_group_array's on SQLite (`["a","b"]`). Should
 * the order differ from the database's collation, the triggers still correct it.
 */
export function tagsKeyText(db: Knex): (tags: string[]) => string {
  return dialect(db) === "postgres"
    ? (tags) => (tags.length === 0 ? "[]" : `[${tags.map((t) => JSON.stringify(t)).join(", ")}]`)
    : (tags) => JSON.stringify(tags);
}

/** The rows of a knex.raw() result: better-sqlite3 answers with the rows, pg with a result object holding them. */
export function rawRows(result: unknown): Record<string, unknown>[] {
  return (Array.isArray(result) ? result : (result as { rows: Record<string, unknown>[] }).rows) as Record<string, unknown>[];
}

/**
 * Locks the rows `q` selects until the transaction ends (Postgres: FOR UPDATE, which also makes a
 * concurrent insert that references them wait, since its foreign-key check needs a share lock). SQLite
 * needs nothing: a write transaction already excludes every other writer.
 */
export function forUpdate(db: Knex, q: Knex.QueryBuilder): Knex.QueryBuilder {
  return dialect(db) === "postgres" ? q.forUpdate() : q;
}

/**
 * A subquery answering, as `alias`, the rows of `from` (the SQL after FROM: a table, its alias and WHERE;
 * correlated or not) as one JSON array of objects, `fields` naming each object's keys and their SQL, in
 * `orderBy` order: json_agg(json_build_object(…)) on Postgres, json_group_array(json_object(…)) on
 * SQLite. No rows: NULL on Postgres, an empty array on SQLite; read it with jsonValue. JSON numbers are
 * doubles: a BIGINT field goes in as CAST(… AS TEXT).
 */
export function jsonRowsSql(db: Knex, fields: Readonly<Record<string, string>>, from: string, orderBy: string, alias: string): string {
  const pairs = Object.entries(fields)
    .map(([key, sql]) => `'${key}', ${sql}`)
    .join(", ");
  return dialect(db) === "postgres"
    ? `(SELECT json_agg(json_build_object(${pairs}) ORDER BY ${orderBy}) FROM ${from}) AS ${alias}`
    : `(SELECT json_group_array(json_object(${pairs}) ORDER BY ${orderBy}) FROM ${from}) AS ${alias}`;
}

/** A JSON column or subquery (jsonRowsSql) as read from either driver: pg parses json, better-sqlite3 answers text. */
export function jsonValue(value: unknown): unknown {
  return typeof value === "string" ? (JSON.parse(value) as unknown) : (value ?? null);
}

/** The statement bound of a transaction doing a whole account's work at once (an account's deletion). */
const ACCOUNT_STATEMENT_TIMEOUT_MS = 10 * 60_000;

/**
 * Raises the request pool's statement bound (src/db/knex.ts#RequestBounds) for the rest of this
 * transaction, on Postgres: deleting an account of 1,000,000 transactions is one DELETE of them, which
 * takes minutes, and is bounded by the account's size rather than by a request's. SQLite: nothing.
 */
export async function allowAccountSizedStatements(trx: Knex.Transaction): Promise<void> {
  if (dialect(trx) !== "postgres") return;
  await trx.raw(`SELECT set_config('statement_timeout', '${ACCOUNT_STATEMENT_TIMEOUT_MS}', true)`);
}
