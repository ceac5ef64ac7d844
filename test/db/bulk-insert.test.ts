/**
 * The import's bulk insert (src/db/bulk-insert.ts): COPY on Postgres, batched INSERTs on SQLite. Text
 * that COPY's format treats specially comes back exactly; children go in after their parents, whatever
 * the chunk size; an absent column takes its default; a row the database refuses fails the insert with
 * the driver's code, and the transaction's connection is left fit to roll back and serve.
 */
import { expect } from "chai";
import type { Knex } from "knex";
import { bulkInsert, PG_CHUNK_ROWS } from "../../src/db/bulk-insert.js";
import { createDb } from "../../src/db/knex.js";
import { createTestDatabase, engine, type TestDatabase } from "../helpers/database.js";

describe(`bulk insert (${engine})`, function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let db: Knex;

  before(async () => {
    database = await createTestDatabase();
    db = createDb(database.url);
    await db.schema.createTable("parents", (t) => {
      t.string("id", 40).primary();
      t.text("note");
      t.boolean("flag").notNullable().defaultTo(true);
      t.bigInteger("amount").notNullable();
    });
    await db.schema.createTable("children", (t) => {
      t.string("parent_id", 40).notNullable().references("parents.id");
      t.string("tag", 40).notNullable();
      t.primary(["parent_id", "tag"]);
    });
  });

  after(async () => {
    await db?.destroy();
    await database?.drop();
  });

  afterEach(async () => {
    await db("children").delete();
    await db("parents").delete();
  });

  it("writes text with tabs, newlines, carriage returns and backslashes exactly, nulls as null, big integers whole", async () => {
    const notes = ["a\tb", "line\nnext", "cr\r", "back\\slash \\N", "\\", "", "ünïcødé ✓", null];
    await db.transaction(async (trx) => {
      const rows = await bulkInsert(trx);
      for (const [i, note] of notes.entries()) await rows.add("parents", { id: `p${i}`, note, flag: i % 2 === 0, amount: i === 0 ? "9007199254740993" : -i });
      await rows.end();
    });
    const back = (await db("parents").orderBy("id").select("id", "note", "flag", "amount")) as {
      id: string;
      note: string | null;
      flag: unknown;
      amount: unknown;
    }[];
    expect(back.map((r) => r.note)).to.deep.equal(notes);
    expect(back.map((r) => Boolean(r.flag))).to.deep.equal(notes.map((_n, i) => i % 2 === 0));
    expect(String(back[0]!.amount)).to.equal("9007199254740993");
  });

  it("puts children in after their parents across chunks, and an absent column takes its default", async () => {
    const n = PG_CHUNK_ROWS + 7;
    await db.transaction(async (trx) => {
      const rows = await bulkInsert(trx);
      for (let i = 0; i < n; i++) {
        const id = `p${String(i).padStart(6, "0")}`;
        const row = i % 2 === 0 ? { id, amount: i } : { id, amount: i, flag: false };
        await rows.add("parents", row, {
          children: [
            { parent_id: id, tag: "a" },
            { parent_id: id, tag: "b" },
          ],
        });
      }
      await rows.end();
    });
    expect(Number((await db("parents").count({ n: "*" }))[0]!.n)).to.equal(n);
    expect(Number((await db("children").count({ n: "*" }))[0]!.n)).to.equal(2 * n);
    const flags = (await db("parents").whereIn("id", ["p000000", "p000001"]).orderBy("id").select("flag")) as { flag: unknown }[];
    expect(flags.map((f) => Boolean(f.flag))).to.deep.equal([true, false]);
  });

  it("a row the database refuses fails with the driver's code; the transaction rolls back and the connection serves on", async () => {
    let caught: unknown;
    try {
      await db.transaction(async (trx) => {
        const rows = await bulkInsert(trx);
        try {
          await rows.add("parents", { id: "p1", amount: 1 });
          await rows.add("parents", { id: "p1", amount: 2 }); // the same key twice
          for (let i = 2; i < 50; i++) await rows.add("parents", { id: `p${i}`, amount: i });
          await rows.end();
        } catch (err) {
          await rows.abort();
          throw err;
        }
      });
    } catch (err) {
      caught = err;
    }
    expect((caught as { code?: unknown }).code)
      .to.be.a("string")
      .and.match(/^(23505|SQLITE_CONSTRAINT)/);
    expect(await db("parents").count({ n: "*" }))
      .to.have.nested.property("[0].n")
      .that.satisfies((v: unknown) => Number(v) === 0);
    // Abandoned halfway (a problem found after rows went in): rolled back, nothing left, the pool serves.
    await db
      .transaction(async (trx) => {
        const rows = await bulkInsert(trx);
        await rows.add("parents", { id: "q1", amount: 1 });
        await rows.abort();
        throw new Error("abandoned");
      })
      .catch(() => undefined);
    for (let i = 0; i < 3; i++)
      expect(await db("parents").count({ n: "*" }))
        .to.have.nested.property("[0].n")
        .that.satisfies((v: unknown) => Number(v) === 0);
  });
});
