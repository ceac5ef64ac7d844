/**
 * A write that fails inside the database after some of its rows were changed: a BEFORE INSERT trigger
 * that raises on `table` (optionally only for rows where `column` = `value`), on either engine, removed
 * again whatever `fn` does. The message is "forced failure", so a test can check it never reaches an answer.
 */
import type { Knex } from "knex";
import { engine } from "./database.js";

export async function withFailingInsert<T>(db: Knex, table: string, fn: () => Promise<T>, only?: { column: string; value: string }): Promise<T> {
  const name = `test_forced_failure_${table}`;
  const condition = only ? `NEW.${only.column} = '${only.value.replace(/'/g, "''")}'` : null;
  if (engine === "postgres") {
    const raise = "RAISE EXCEPTION 'forced failure';";
    await db.raw(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN ${condition ? `IF ${condition} THEN ${raise} END IF;` : raise} RETURN NEW; END $$`);
    await db.raw(`CREATE TRIGGER ${name} BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}()`);
  } else {
    await db.raw(`CREATE TRIGGER ${name} BEFORE INSERT ON ${table} ${condition ? `WHEN ${condition} ` : ""}BEGIN SELECT RAISE(ABORT, 'forced failure'); END`);
  }
  try {
    return await fn();
  } finally {
    await db.raw(`DROP TRIGGER IF EXISTS ${name}${engine === "postgres" ? ` ON ${table}` : ""}`);
    if (engine === "postgres") await db.raw(`DROP FUNCTION IF EXISTS ${name}()`);
  }
}
