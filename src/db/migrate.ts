import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Knex } from "knex";

export const migrationsDirectory = resolve(dirname(fileURLToPath(import.meta.url)), "../../migrations");

export const migratorConfig: Knex.MigratorConfig = {
  directory: migrationsDirectory,
  loadExtensions: [".js"],
  tableName: "knex_migrations",
};

export async function migrateLatest(db: Knex): Promise<void> {
  await db.migrate.latest(migratorConfig);
}

export async function rollbackAll(db: Knex): Promise<void> {
  await db.migrate.rollback(migratorConfig, true);
}
