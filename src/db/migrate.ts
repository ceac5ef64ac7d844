import type { Knex } from "knex";
import { packagePath } from "../package-root.js";
import { dropRowCapture, ensureRowCapture, rowCaptureGaps } from "./row-capture.js";

export const migrationsDirectory = packagePath("migrations");

export const migratorConfig: Knex.MigratorConfig = {
  directory: migrationsDirectory,
  loadExtensions: [".js"],
  tableName: "knex_migrations",
};

/**
 * Applies the pending migrations. SQLite's audit capture triggers name columns a migration may drop, so
 * a run with migrations to apply drops them first and makes them again from the migrated schema before
 * it returns, even when a migration failed: any process that migrates leaves capture in place. With
 * nothing to apply (every CLI command beside a live server) the triggers are left alone, or made whole
 * if they are not (docs/decisions.md#capture-checked-in-the-write).
 */
export async function migrateLatest(db: Knex): Promise<void> {
  if ((await pendingMigrations(db)) > 0) {
    await dropRowCapture(db);
    try {
      await db.migrate.latest(migratorConfig);
    } catch (err) {
      // The schema as far as it got is captured too; the migration's own error is the one reported.
      await ensureRowCapture(db).catch(() => undefined);
      throw err;
    }
    await ensureRowCapture(db);
    return;
  }
  await repairRowCapture(db);
}

export async function rollbackAll(db: Knex): Promise<void> {
  await dropRowCapture(db);
  await db.migrate.rollback(migratorConfig, true);
}

/** How many migration files have not run on this database (0: the schema is current). */
export async function pendingMigrations(db: Knex): Promise<number> {
  const [, pending] = (await db.migrate.list(migratorConfig)) as [unknown[], unknown[]];
  return pending.length;
}

/**
 * Makes capture whole again when it is not and no migration is pending or running (a migration run
 * makes it itself when it ends): the triggers follow from the live schema, so remaking them is safe.
 * Answers the tables still missing capture afterwards (none: whole).
 */
export async function repairRowCapture(db: Knex): Promise<{ gaps: string[]; repaired: boolean }> {
  const gaps = await rowCaptureGaps(db);
  if (gaps.length === 0) return { gaps, repaired: false };
  if ((await pendingMigrations(db)) > 0 || (await migrationRunning(db))) return { gaps, repaired: false };
  await ensureRowCapture(db);
  const left = await rowCaptureGaps(db);
  return { gaps: left, repaired: left.length === 0 };
}

async function migrationRunning(db: Knex): Promise<boolean> {
  if (!(await db.schema.hasTable("knex_migrations_lock"))) return false;
  const row = (await db("knex_migrations_lock").first("is_locked")) as { is_locked?: number } | undefined;
  return Number(row?.is_locked ?? 0) === 1;
}
