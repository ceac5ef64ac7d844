/**
 * SQLite's log is copied back into the database file by a worker thread, not inside a COMMIT (issue 51,
 * src/db/checkpoint.ts): beside a bulk write the COMMIT that crossed 1,000 pages of log ran a checkpoint
 * of 50–125 ms on the event loop. The request connection's own automatic checkpoint is only a safety net
 * (SAFETY_NET_PAGES), so is the side connection's (src/db/side.ts), and the worker's checkpoint reaches the
 * file after a commit. SQLite only.
 */
import { expect } from "chai";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDb } from "../../src/db/knex.js";
import { SAFETY_NET_PAGES } from "../../src/db/checkpoint.js";
import { sideConnection } from "../../src/db/side.js";
import { engine } from "../helpers/database.js";

describe("the SQLite log checkpointed off the event loop", function () {
  this.timeout(30_000);
  if (engine !== "sqlite") return;

  it("leaves the COMMIT without a checkpoint, and the worker's reaches the file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fmcp-checkpoint-"));
    const file = join(dir, "db.sqlite");
    const db = createDb(`sqlite:${file}`);
    try {
      const pragma = (await db.raw("PRAGMA wal_autocheckpoint")) as { wal_autocheckpoint: bigint }[];
      expect(Number(pragma[0]!.wal_autocheckpoint)).to.equal(SAFETY_NET_PAGES);
      await db.raw("CREATE TABLE t (id INTEGER PRIMARY KEY, note TEXT NOT NULL)");
      const before = statSync(file).size;
      // About 3 MB of rows in one transaction.
      await db.transaction(async (trx) => {
        for (let i = 0; i < 30; i++) await trx("t").insert(Array.from({ length: 100 }, (_, k) => ({ note: `${i}-${k}-${"x".repeat(1000)}` })));
      });
      const deadline = Date.now() + 10_000;
      while (statSync(file).size < before + 2_000_000 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(statSync(file).size, "the database file after the worker's checkpoint").to.be.above(before + 2_000_000);
    } finally {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("leaves the side connection's commits without a checkpoint too (a rate-limit count right after a bulk COMMIT)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fmcp-checkpoint-"));
    const db = createDb(`sqlite:${join(dir, "db.sqlite")}`);
    const side = sideConnection(db);
    try {
      // SQLite's default, 1,000 pages, copied a bulk write's whole log back on the event loop in the
      // next whoami's rate-limit count, before the worker's checkpoint came (4,826 pages measured).
      const pragma = (await side.raw("PRAGMA wal_autocheckpoint")) as { wal_autocheckpoint: bigint }[];
      expect(Number(pragma[0]!.wal_autocheckpoint)).to.equal(SAFETY_NET_PAGES);
    } finally {
      await side.destroy();
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
