import type { Knex } from "knex";
import { packagePath } from "../package-root.js";
import { dropRowCapture } from "./row-capture.js";

export const migrationsDirectory = packagePath("migrations");

export const migratorConfig: Knex.MigratorConfig = {
  directory: migrationsDirectory,
  loadExtensions: [".js"],
  tableName: "knex_migrations",
};

export async function migrateLatest(db: Knex): Promise<void> {
  // SQLite's audit capture triggers name columns a migration may drop: the services make them again.
  await dropRowCapture(db);
  await db.migrate.latest(migratorConfig);
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
