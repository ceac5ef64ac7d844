/**
 * migratedTestDatabase() hands out copies of one template (docs/decisions.md#test-database-template):
 * each copy must be a database as the server leaves it after its first start, and copies must not share
 * rows, on both engines.
 */
import { expect } from "chai";
import type { Knex } from "knex";
import { createDb } from "../../src/db/knex.js";
import { pendingMigrations } from "../../src/db/migrate.js";
import { migratedTestDatabase, engine, type TestDatabase } from "../helpers/database.js";
import { insertUserWithToken } from "../helpers/direct-user.js";

describe(`the migrated test database template (${engine})`, () => {
  const opened: { database: TestDatabase; db: Knex }[] = [];
  async function open(): Promise<Knex> {
    const database = await migratedTestDatabase();
    const db = createDb(database.url);
    opened.push({ database, db });
    return db;
  }
  after(async () => {
    for (const { database, db } of opened) {
      await db.destroy();
      await database.drop();
    }
  });

  it("is fully migrated, holds the help articles and no person", async () => {
    const db = await open();
    expect(await pendingMigrations(db)).to.equal(0);
    const articles = await db("kb_entries").count<{ n: unknown }[]>({ n: "*" }).first();
    expect(Number(articles?.n)).to.be.greaterThan(0);
    const users = await db("users").count<{ n: unknown }[]>({ n: "*" }).first();
    expect(Number(users?.n)).to.equal(0);
  });

  it("gives each caller its own database: rows written in one copy are not in the next", async () => {
    const first = await open();
    const user = await insertUserWithToken(first, { email: "template-copy@example.test" });
    expect(await first("users").where({ id: user.id }).first()).to.not.equal(undefined);
    const second = await open();
    expect(await second("users").where({ id: user.id }).first()).to.equal(undefined);
    expect(opened.at(-1)!.database.url).to.not.equal(opened.at(-2)!.database.url);
  });
});
